// The text files of a torch install: version.py and the dist metadata.
// Parsed by hand because running Python on them would mean importing torch
// (version.py lives inside the package) or trusting an interpreter we probe.

#include <cstring>

#include "env/torch.hpp"
#include "pkg/name.hpp"
#include "pkg/requirement.hpp"
#include "util/strings.hpp"

namespace flashfit::env {

namespace {

bool is_identifier_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_identifier_char(char c) {
  return is_identifier_start(c) || (c >= '0' && c <= '9');
}

// Whether the rest of a line, after a value, is only blanks or a comment.
bool only_comment(std::string_view rest) {
  rest = util::trim(rest);
  return rest.empty() || rest.front() == '#';
}

// Text up to a '#' that starts a comment (strings were already handled).
std::string_view strip_comment(std::string_view text) {
  const auto hash = text.find('#');
  return util::trim(hash == std::string_view::npos ? text : text.substr(0, hash));
}

PyValue parse_value(std::string_view value) {
  PyValue out;
  if (!value.empty() && (value.front() == '\'' || value.front() == '"')) {
    const char quote = value.front();
    const auto close = value.find(quote, 1);
    // Escapes never appear in version strings; refuse them rather than decode
    // them half-way.
    const auto body = close == std::string_view::npos ? value : value.substr(1, close - 1);
    if (close != std::string_view::npos && body.find('\\') == std::string_view::npos &&
        only_comment(value.substr(close + 1))) {
      out.kind = PyValue::Kind::string;
      out.text = std::string(body);
      return out;
    }
    out.text = std::string(util::trim(value));
    return out;
  }
  const auto bare = strip_comment(value);
  if (bare == "None") {
    out.kind = PyValue::Kind::none;
    out.text = "None";
    return out;
  }
  out.text = std::string(bare);
  return out;
}

// NVIDIA's CUDA wheels: "nvidia-cuda-runtime-cu12", "nvidia-cudnn-cu13",
// and for CUDA 13 also unsuffixed toolkit parts ("nvidia-cuda-runtime").
// torch 2.10+ cu13 builds require most parts through NVIDIA's metapackage
// instead, `cuda-toolkit[cublas,cudart,...]==13.0.3` (the extras pull the
// nvidia-* wheels), and name only cudnn, cusparselt, nccl and nvshmem
// directly: without it the list would miss cudart and cublas.
bool is_cuda_package(std::string_view name) {
  const std::string canonical = pkg::canonicalize_name(name);
  return util::starts_with(canonical, "nvidia-") || canonical == "cuda-toolkit";
}

void add_requirement(std::string_view text, std::vector<CudaRuntimePackage>& out) {
  auto requirement = pkg::parse_requirement(util::trim(text));
  if (!requirement || !is_cuda_package(requirement->name)) return;
  out.push_back(CudaRuntimePackage{requirement->name, requirement->str()});
}

}  // namespace

util::Result<std::map<std::string, PyValue>> parse_version_py(std::string_view text) {
  if (text.find('\0') != std::string_view::npos) {
    return util::input_error("not Python source: contains NUL bytes");
  }
  if (!util::valid_utf8(text)) return util::input_error("not Python source: invalid UTF-8");
  std::map<std::string, PyValue> values;
  for (auto line : util::split(text, '\n')) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    // Indented lines belong to a block (if/def), not the module namespace.
    if (line.empty() || !is_identifier_start(line.front())) continue;
    std::size_t end = 1;
    while (end < line.size() && is_identifier_char(line[end])) ++end;
    const std::string name(line.substr(0, end));
    std::string_view rest = util::trim(line.substr(end));
    if (!rest.empty() && rest.front() == ':') {
      // An annotation such as "Optional[str]" never contains '='.
      const auto equals = rest.find('=');
      if (equals == std::string_view::npos) continue;  // a bare annotation, no value
      rest = rest.substr(equals);
    }
    if (rest.empty() || rest.front() != '=' || util::starts_with(rest, "==")) continue;
    values[name] = parse_value(util::trim(rest.substr(1)));
  }
  return values;
}

std::vector<CudaRuntimePackage> cuda_runtime_packages_from_metadata(std::string_view metadata) {
  std::vector<CudaRuntimePackage> out;
  for (auto line : util::split(metadata, '\n')) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;  // the headers end at the first blank line; the body follows
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    if (util::ascii_lower(util::trim(line.substr(0, colon))) != "requires-dist") continue;
    add_requirement(line.substr(colon + 1), out);
  }
  return out;
}

std::vector<CudaRuntimePackage> cuda_runtime_packages_from_requires_txt(std::string_view text) {
  std::vector<CudaRuntimePackage> out;
  for (auto line : util::split(text, '\n')) {
    line = util::trim(line);
    if (util::starts_with(line, "[")) break;  // extras and conditional sections follow
    if (line.empty() || line.front() == '#') continue;
    add_requirement(line, out);
  }
  return out;
}

}  // namespace flashfit::env
