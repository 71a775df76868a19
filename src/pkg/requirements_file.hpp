#pragma once
// pip's requirements-file format (pip 23.0.1's req_file.py is the reference):
// `#` comments, `\` line continuations, `-r`/`-c` includes, index options
// (`--index-url`, `--extra-index-url`, `--find-links`, `--no-index`), PEP 508
// lines (markers, `name @ URL`), per-line options (`--hash`, `--global-option`,
// `--install-option`, `--config-settings`), and paths or URLs to wheels and
// sdists. Read as pip reads it: the text decoded by its byte-order mark, lines
// split as str.splitlines() does, the options part of a line shlex-split and
// long options matched by unique prefix; a line that includes a file acts on
// the include only (pip ignores its other options). Pure: includes are read
// through FileReader, so tests and the fuzzer give it an in-memory tree.
//
// Deliberate differences from pip: a continuation at end of file, a malformed
// hash, an include loop, words after the options and a UTF-32 little-endian
// file are errors (pip accepts the first three, ignores the words, misreads
// the file and recurses forever on the loop); `${VAR}` is not expanded;
// options pip accepts but flashfit does not act on (-e, --pre, --trusted-host,
// --only-binary, ...) are kept as `passthrough` for the installer, not
// interpreted.

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

// An option written after a requirement that flashfit hands on, not acts on.
struct LineOption {
  std::string name;  // "--global-option", "--install-option", "--config-settings"
  std::string value;
};

struct RequirementLine {
  std::string file;      // the file it came from, as given or joined
  std::size_t line = 0;  // 1-based, the first physical line of a continuation
  std::string text;      // the requirement part, whitespace-collapsed as pip does
  // A PEP 508 requirement; empty for a path or URL to an archive.
  std::optional<Requirement> requirement;
  // Set when the specifier is one only pip 23.0.1's older grammar (packaging
  // 21.3's legacy specifiers) reads, such as `six>=1.0.*`: why the strict
  // parse refused it. `requirement` then has the name, extras and marker but
  // an empty specifier, so only `text` says what the line asks for; such a
  // line can only go to the installer unchanged.
  std::optional<util::Error> loose_specifier;
  // A path or URL to a wheel / sdist / directory (pip's "not a PEP 508 name"),
  // without the `[extras]` pip strips off a path.
  std::optional<std::string> location;
  std::vector<std::string> extras;  // a path's `[extras]`, as written
  std::vector<std::string> hashes;  // "sha256:<hex>", in file order
  std::vector<LineOption> options;  // in file order
  bool constraint = false;          // from a -c file
};

// The options of one line that flashfit does not interpret, for the
// installer: `text` holds them requoted (`--pre --trusted-host=h`), without
// the ones flashfit acted on.
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

// Parses `text` (the bytes of `file`) as pip would; includes go through `reader`.
util::Result<RequirementsFile> parse_requirements_file(std::string_view text,
                                                       const std::string& file, FileReader& reader);

// An option value written into a requirements file so that pip reads it back
// unchanged: quoted for its shlex split when needed, and a '#' kept from
// reading as a comment.
std::string quote_option_value(std::string_view value);

}  // namespace flashfit::pkg
