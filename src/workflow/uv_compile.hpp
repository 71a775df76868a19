#pragma once
// uv as the resolver of the lines `flashfit lock` leaves to the installer:
// `uv pip compile --format pylock.toml` for the probed interpreter, read back
// (pure) as one file per package, the file being the one this interpreter
// would install: the wheel its supported tags rank best, else the sdist.
// pip's `install --dry-run --report` is the other resolver (workflow/pip_report).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/tags.hpp"
#include "util/error.hpp"
#include "workflow/pip_report.hpp"

namespace flashfit::workflow {

enum class LineResolver { pip, uv };
std::string_view to_string(LineResolver resolver);  // "pip", "uv"

// Which resolver locks the installer's lines: the one asked for (`--resolver
// pip|uv`), else uv when it is on PATH (the installer flashfit installs with
// then), else pip. Asking for uv without it is a usage error.
util::Result<LineResolver> choose_line_resolver(const std::optional<std::string>& asked,
                                                bool uv_on_path);

// `uv pip compile --python PY --format pylock.toml -o OUTPUT REQUIREMENTS
// [-c CONSTRAINTS]` (uv requires OUTPUT to be named as PEP 751 names a pylock).
std::vector<std::string> uv_compile_argv(const std::string& uv, const std::string& python,
                                         const std::string& requirements, const std::string& output,
                                         const std::string& constraints = {});

// uv's pylock.toml, one ReportedPackage per package: the best-ranked wheel
// for `tags`, else the sdist, else the archive, with its sha256 (empty when
// uv gave none). Errors (input, naming `origin`, the key path and line): bad
// TOML, a lock-version other than 1.x, a package without name or version,
// none of its files installable here, a package with a marker (uv resolved
// for several environments: flashfit locks one), a vcs or directory source.
util::Result<std::vector<ReportedPackage>> parse_uv_resolution(std::string_view text,
                                                               std::string_view origin,
                                                               const pkg::SupportedTags& tags);

}  // namespace flashfit::workflow
