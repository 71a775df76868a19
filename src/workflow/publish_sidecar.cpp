#include "workflow/publish_sidecar.hpp"

#include "workflow/publish_fit.hpp"

namespace flashfit::workflow {

store::VariantRecord variant_record(const PublishedWheel& wheel) {
  const WheelFacts& f = wheel.facts;
  store::VariantRecord r;
  r.filename = f.filename;
  r.name = f.project;
  r.version = f.version;
  r.sha256 = f.sha256;
  r.size = f.size;
  r.metadata_sha256 = wheel.metadata_sha256;
  r.metadata_name = f.metadata_name;
  r.requires_python = f.requires_python;
  r.python_tag = f.python_tag;
  r.platform = f.platform_tag;
  r.torch_major = f.torch_major;
  r.torch_minor = f.torch_minor;
  r.uses_cuda = f.uses_cuda;
  r.cuda_major = f.cuda_major;
  r.cuda_minor = f.cuda_minor;
  r.cxx11_abi = f.cxx11_abi;
  r.sass_archs = f.sass_archs;
  r.ptx_archs = f.ptx_archs;
  r.source = f.source;
  r.original_url = f.original_url;
  r.original_sha256 = f.original_sha256;
  for (const EnvKey& k : f.for_torch) r.for_torch.push_back({k.torch_version, k.cxx11_abi});
  return r;
}

std::string sidecar_json(const PublishedWheel& wheel) {
  return store::variant_record_json(variant_record(wheel));
}

util::Result<PublishedWheel> parse_sidecar(std::string_view text) {
  auto record = store::parse_variant_record(text);
  if (!record) return tl::unexpected(record.error());
  store::VariantRecord& r = *record;
  PublishedWheel w;
  WheelFacts& f = w.facts;
  f.filename = std::move(r.filename);
  f.project = std::move(r.name);
  f.version = std::move(r.version);
  f.metadata_version = f.version;
  f.requires_python = std::move(r.requires_python);
  f.sha256 = std::move(r.sha256);
  f.size = r.size;
  w.metadata_sha256 = std::move(r.metadata_sha256);
  f.metadata_name = std::move(r.metadata_name);
  f.python_tag = std::move(r.python_tag);
  f.platform_tag = std::move(r.platform);
  f.torch_major = r.torch_major;
  f.torch_minor = r.torch_minor;
  f.uses_cuda = r.uses_cuda;
  f.cuda_major = r.cuda_major;
  f.cuda_minor = r.cuda_minor;
  f.cxx11_abi = r.cxx11_abi;
  f.sass_archs = std::move(r.sass_archs);
  f.ptx_archs = std::move(r.ptx_archs);
  f.source = std::move(r.source);
  f.original_url = std::move(r.original_url);
  f.original_sha256 = std::move(r.original_sha256);
  for (const store::TorchPlacement& p : r.for_torch) {
    auto key = parse_env_key(p.torch, p.cxx11_abi);
    if (!key) return tl::unexpected(key.error());
    f.for_torch.push_back(*key);
  }
  return w;
}

}  // namespace flashfit::workflow
