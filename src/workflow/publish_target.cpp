#include "workflow/publish_target.hpp"

namespace flashfit::workflow {

util::Result<void> PublishTarget::put_all(std::span<const PutRequest> puts,
                                          const std::function<void(std::size_t)>& started) {
  for (std::size_t i = 0; i < puts.size(); ++i) {
    const PutRequest& p = puts[i];
    if (started) started(i);
    auto put = p.source.empty() ? put_bytes(p.path, p.bytes) : put_file(p.path, p.source, p.sha256);
    if (!put) {
      if (p.context.empty()) return put;
      return tl::unexpected(std::move(put.error()).with_context(std::string(p.context)));
    }
  }
  return {};
}

}  // namespace flashfit::workflow
