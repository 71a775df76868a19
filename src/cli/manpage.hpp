#pragma once
// Man pages rendered from the command tree (cli/help_model): flashfit(1) and
// flashfit-COMMAND(1) per command, so the pages say what --help says.

#include <string>
#include <string_view>
#include <vector>

#include "cli/help_model.hpp"

namespace flashfit::cli {

// One page in roff (man(7) macros). `root` is the whole tree, for the
// global options and the SEE ALSO list.
std::string man_page(const CommandHelp& command, const CommandHelp& root, std::string_view version);

// Every page of the tree: {file name "flashfit-cache-list.1", roff}, root first.
std::vector<std::pair<std::string, std::string>> man_pages(const CommandHelp& root,
                                                           std::string_view version);

}  // namespace flashfit::cli
