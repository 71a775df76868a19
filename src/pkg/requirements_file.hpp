#pragma once
// pip's requirements-file format (pip 23.0.1's req_file.py is the reference):
// `#` comments, `\` line continuations, `-r`/`-c` includes, index options
// (`--index-url`, `--extra-index-url`, `--find-links`, `--no-index`), PEP 508
// lines (markers, `name @ URL`), per-line `--hash=algo:hex`, and paths or URLs
// to wheels and sdists. Pure: includes are read through FileReader, so tests
// and the fuzzer give it an in-memory tree.
//
// Deliberate differences from pip: a continuation at end of file, a malformed
// hash and an include loop are errors (pip accepts the first two and recurses
// forever on the third); `${VAR}` is not expanded; options pip accepts but
// flashfit does not act on (-e, --pre, --trusted-host, --only-binary, ...) are
// kept as `passthrough` lines for the installer, not interpreted.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/requirement.hpp"
#include "util/error.hpp"

namespace flashfit::pkg {

// Reads an included file; `path` is already joined to the including file's
// directory. Errors (missing file) come back as values.
class FileReader {
 public:
  virtual ~FileReader() = default;
  virtual util::Result<std::string> read(const std::string& path) = 0;
};

struct RequirementLine {
  std::string file;      // the file it came from, as given or joined
  std::size_t line = 0;  // 1-based, the first physical line of a continuation
  std::string text;      // the requirement part, whitespace-collapsed as pip does
  // A PEP 508 requirement; empty for a path or URL to an archive.
  std::optional<Requirement> requirement;
  // A path or URL to a wheel / sdist / directory (pip's "not a PEP 508 name").
  std::optional<std::string> location;
  std::vector<std::string> hashes;  // "sha256:<hex>", in file order
  bool constraint = false;          // from a -c file
};

// An option line flashfit does not interpret, handed to the installer as is.
struct PassthroughOption {
  std::string file;
  std::size_t line = 0;
  std::string text;
};

struct RequirementsFile {
  std::vector<RequirementLine> lines;
  std::optional<std::string> index_url;  // the last --index-url wins, as in pip
  std::vector<std::string> extra_index_urls;
  std::vector<std::string> find_links;
  bool no_index = false;
  std::vector<PassthroughOption> passthrough;
};

// Parses `text` as the content of `file`; includes go through `reader`.
util::Result<RequirementsFile> parse_requirements_file(std::string_view text,
                                                       const std::string& file, FileReader& reader);

}  // namespace flashfit::pkg
