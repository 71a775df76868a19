// The variant record's JSON (see variant_record.hpp). The wheel-variant
// proposals' vocabulary where it fits: properties grouped by what they are
// about (torch, cuda, archs).
#include "store/variant_record.hpp"

#include <fmt/format.h>

#include <limits>
#include <nlohmann/json.hpp>

#include "pkg/version.hpp"
#include "store/cache_layout.hpp"
#include "store/json_fields.hpp"
#include "util/strings.hpp"

namespace flashfit::store {
namespace {

using nlohmann::json;
constexpr int kSchema = 1;
constexpr std::size_t kMaxList = 64;         // archs
constexpr std::size_t kMaxPlacements = 256;  // for_torch
constexpr std::size_t kMaxString = 4096;

template <class T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

using Fields = detail::JsonFields;

// A small count (a torch or CUDA major/minor).
std::optional<int> small(Fields& f, const char* key) {
  auto v = f.integer(key, 0, 999);
  return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
}

std::vector<int> sm_list(Fields& f, const char* key) {
  std::vector<int> out;
  const json* v = f.field(key);
  if (!v) return out;
  if (!v->is_array() || v->size() > kMaxList) {
    f.wrong(key, "an array of up to 64 SM numbers");
    return out;
  }
  for (const json& item : *v) {
    auto n = f.integer_value(item, key, 1, 9999);
    if (!n) return {};
    out.push_back(static_cast<int>(*n));
  }
  return out;
}

std::string arch_name(int sm) {
  return "sm_" + std::to_string(sm);
}

}  // namespace

std::string variant_record_json(const VariantRecord& r) {
  json for_torch = json::array();
  for (const auto& p : r.for_torch)
    for_torch.push_back({{"torch", p.torch}, {"cxx11_abi", p.cxx11_abi}});
  const json doc = {
      {"schema", kSchema},
      {"filename", r.filename},
      {"name", r.name},
      {"version", r.version},
      {"sha256", r.sha256},
      {"size", r.size},
      {"metadata_sha256", r.metadata_sha256},
      {"metadata_name", r.metadata_name},
      {"requires_python", r.requires_python},
      {"python_tag", r.python_tag},
      {"platform", r.platform},
      {"torch", {{"major", opt(r.torch_major)}, {"minor", opt(r.torch_minor)}}},
      {"cuda", {{"uses", r.uses_cuda}, {"major", opt(r.cuda_major)}, {"minor", opt(r.cuda_minor)}}},
      {"cxx11_abi", opt(r.cxx11_abi)},
      {"archs", {{"sass", r.sass_archs}, {"ptx", r.ptx_archs}}},
      {"source", r.source},
      {"original_url", r.original_url},
      {"original_sha256", r.original_sha256},
      {"for_torch", for_torch},
  };
  // Invalid UTF-8 (a hostile URL) is replaced rather than thrown on.
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

util::Result<VariantRecord> parse_variant_record(std::string_view text) {
  if (text.size() > kMaxVariantRecordBytes) {
    return util::input_error(fmt::format("a variant record of {} bytes (at most {} are read)",
                                         text.size(), kMaxVariantRecordBytes));
  }
  const json doc = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return util::input_error("the variant record is not valid JSON");
  if (!doc.is_object()) return util::input_error("the variant record is not a JSON object");
  auto schema = doc.find("schema");
  if (schema == doc.end() || !schema->is_number_integer() || *schema != kSchema) {
    return util::input_error(
        "not a flashfit variant record of schema 1 (written by another tool or a newer flashfit?)");
  }
  std::string problem;
  Fields r{doc, problem, "", kMaxString};
  VariantRecord rec;
  rec.filename = r.required_string("filename");
  rec.name = r.required_string("name");
  rec.version = r.required_string("version");
  rec.sha256 = r.required_string("sha256");
  if (auto size = r.integer("size", 0, std::numeric_limits<std::int64_t>::max())) {
    rec.size = static_cast<std::uint64_t>(*size);
  } else {
    r.missing("size");
  }
  rec.metadata_sha256 = r.string("metadata_sha256").value_or("");
  rec.metadata_name = r.string("metadata_name").value_or("");
  rec.requires_python = r.string("requires_python").value_or("");
  rec.python_tag = r.string("python_tag").value_or("");
  rec.platform = r.string("platform").value_or("");
  if (const json* torch = r.object_field("torch")) {
    Fields t{*torch, problem, "torch.", kMaxString};
    rec.torch_major = small(t, "major");
    rec.torch_minor = small(t, "minor");
    if (rec.torch_major.has_value() != rec.torch_minor.has_value()) {
      rec.torch_major.reset();  // half a version is none
      rec.torch_minor.reset();
    }
  }
  if (const json* cuda = r.object_field("cuda")) {
    Fields c{*cuda, problem, "cuda.", kMaxString};
    rec.uses_cuda = c.boolean("uses").value_or(false);
    rec.cuda_major = small(c, "major");
    rec.cuda_minor = small(c, "minor");
  }
  rec.cxx11_abi = r.boolean("cxx11_abi");
  if (const json* archs = r.object_field("archs")) {
    Fields a{*archs, problem, "archs.", kMaxString};
    rec.sass_archs = sm_list(a, "sass");
    rec.ptx_archs = sm_list(a, "ptx");
  }
  rec.source = r.string("source").value_or("");
  rec.original_url = r.string("original_url").value_or("");
  rec.original_sha256 = r.string("original_sha256").value_or("");
  if (const json* list = r.field("for_torch")) {
    if (!list->is_array() || list->size() > kMaxPlacements) {
      r.wrong("for_torch", "an array of up to 256 placements");
    } else {
      for (const json& item : *list) {
        if (!item.is_object()) {
          r.wrong("for_torch", "an array of objects");
          break;
        }
        Fields p{item, problem, "for_torch[].", kMaxString};
        TorchPlacement placement;
        placement.torch = p.required_string("torch");
        auto abi = p.boolean("cxx11_abi");
        if (!abi) p.missing("cxx11_abi");
        placement.cxx11_abi = abi.value_or(true);
        if (!problem.empty()) break;
        rec.for_torch.push_back(std::move(placement));
      }
    }
  }
  if (!problem.empty()) return util::input_error("variant record: " + util::printable(problem));
  if (!detail::is_sha256_hex(rec.sha256))
    return util::input_error("variant record: \"sha256\" is not 64 lower-case hex digits");
  if (!rec.original_sha256.empty() && !detail::is_sha256_hex(rec.original_sha256)) {
    return util::input_error("variant record: \"original_sha256\" is not 64 lower-case hex digits");
  }
  if (!detail::is_safe_basename(rec.filename) || !util::ends_with(rec.filename, ".whl")) {
    return util::input_error(fmt::format("variant record: \"filename\" '{}' is not a wheel's name",
                                         util::printable(rec.filename)));
  }
  return rec;
}

BuildRecord build_record_of(const VariantRecord& r) {
  BuildRecord out;
  if (r.torch_major && r.torch_minor) {
    if (auto v = pkg::Version::parse(fmt::format("{}.{}", *r.torch_major, *r.torch_minor)))
      out.torch = std::move(*v);
  } else if (!r.for_torch.empty()) {
    // Placements name exact torch builds; one torch minor among them is the record's torch.
    std::optional<pkg::TorchVersion> common;
    bool one = true;
    for (const auto& p : r.for_torch) {
      auto version = pkg::Version::parse(p.torch);
      auto minor = version ? pkg::torch_minor(*version) : std::nullopt;
      if (!minor || (common && *common != *minor)) {
        one = false;
        break;
      }
      common = minor;
    }
    if (one && common) {
      if (auto v = pkg::Version::parse(common->str())) out.torch = std::move(*v);
    }
  }
  if (r.cxx11_abi) {
    out.cxx11_abi = r.cxx11_abi;
  } else if (!r.for_torch.empty()) {
    bool abi = r.for_torch.front().cxx11_abi;
    bool agree = true;
    for (const auto& p : r.for_torch) agree = agree && p.cxx11_abi == abi;
    if (agree) out.cxx11_abi = abi;
  }
  if (!r.uses_cuda) {
    out.cuda = BuiltCuda{};
  } else if (r.cuda_major) {
    out.cuda = BuiltCuda{pkg::CudaVersion{*r.cuda_major, r.cuda_minor}};
  }
  if (!r.python_tag.empty()) out.python = r.python_tag;
  if (!r.platform.empty()) out.platform = r.platform;
  for (int sm : r.sass_archs) out.archs.push_back(arch_name(sm));
  return out;
}

std::vector<std::string> ptx_arch_names(const VariantRecord& r) {
  std::vector<std::string> out;
  for (int sm : r.ptx_archs) out.push_back(arch_name(sm));
  return out;
}

}  // namespace flashfit::store
