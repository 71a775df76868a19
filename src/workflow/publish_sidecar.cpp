#include "workflow/publish_sidecar.hpp"

#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "workflow/publish_fit.hpp"

namespace flashfit::workflow {
namespace {

using nlohmann::json;
constexpr int kSchema = 1;

template <class T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

template <class T>
std::optional<T> get_opt(const json& doc, const char* key) {
  if (!doc.contains(key) || doc.at(key).is_null()) return std::nullopt;
  return doc.at(key).get<T>();
}

}  // namespace

std::string sidecar_json(const PublishedWheel& wheel) {
  const auto& f = wheel.facts;
  json for_torch = json::array();
  for (const auto& k : f.for_torch)
    for_torch.push_back({{"torch", k.torch_version}, {"cxx11_abi", k.cxx11_abi}});
  // The wheel-variant proposals' vocabulary where it fits: properties by namespace.
  const json doc = {
      {"schema", kSchema},
      {"filename", f.filename},
      {"name", f.project},
      {"version", f.version},
      {"sha256", f.sha256},
      {"size", f.size},
      {"metadata_sha256", wheel.metadata_sha256},
      {"requires_python", f.requires_python},
      {"python_tag", f.python_tag},
      {"platform", f.platform_tag},
      {"torch", {{"major", opt(f.torch_major)}, {"minor", opt(f.torch_minor)}}},
      {"cuda", {{"uses", f.uses_cuda}, {"major", opt(f.cuda_major)}, {"minor", opt(f.cuda_minor)}}},
      {"cxx11_abi", opt(f.cxx11_abi)},
      {"archs", {{"sass", f.sass_archs}, {"ptx", f.ptx_archs}}},
      {"source", f.source},
      {"original_sha256", f.original_sha256},
      {"for_torch", for_torch},
  };
  return doc.dump(2) + "\n";
}

util::Result<PublishedWheel> parse_sidecar(std::string_view text) {
  try {
    const json doc = json::parse(text);
    if (!doc.is_object() || doc.value("schema", 0) != kSchema) {
      return util::input_error("not a flashfit variant record (schema 1)");
    }
    PublishedWheel w;
    auto& f = w.facts;
    f.filename = doc.at("filename").get<std::string>();
    f.project = doc.at("name").get<std::string>();
    f.version = doc.at("version").get<std::string>();
    f.metadata_version = f.version;
    f.sha256 = doc.at("sha256").get<std::string>();
    f.size = doc.at("size").get<std::uint64_t>();
    w.metadata_sha256 = doc.at("metadata_sha256").get<std::string>();
    f.requires_python = doc.value("requires_python", "");
    f.python_tag = doc.value("python_tag", "");
    f.platform_tag = doc.value("platform", "");
    f.torch_major = get_opt<int>(doc.at("torch"), "major");
    f.torch_minor = get_opt<int>(doc.at("torch"), "minor");
    f.uses_cuda = doc.at("cuda").value("uses", false);
    f.cuda_major = get_opt<int>(doc.at("cuda"), "major");
    f.cuda_minor = get_opt<int>(doc.at("cuda"), "minor");
    f.cxx11_abi = get_opt<bool>(doc, "cxx11_abi");
    f.sass_archs = doc.at("archs").at("sass").get<std::vector<int>>();
    f.ptx_archs = doc.at("archs").at("ptx").get<std::vector<int>>();
    f.source = doc.value("source", "");
    f.original_sha256 = doc.value("original_sha256", "");
    for (const auto& k : doc.at("for_torch")) {
      auto key = parse_env_key(k.at("torch").get<std::string>(), k.at("cxx11_abi").get<bool>());
      if (!key) return tl::unexpected(key.error());
      f.for_torch.push_back(*key);
    }
    if (f.sha256.size() != 64 || f.filename.empty() || f.filename.find('/') != std::string::npos) {
      return util::input_error("a variant record with a bad file name or sha256");
    }
    return w;
  } catch (const json::exception& e) {
    return util::input_error(fmt::format("unreadable variant record: {}", e.what()));
  }
}

}  // namespace flashfit::workflow
