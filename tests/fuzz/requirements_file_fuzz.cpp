// pip requirements files: any input parses or fails with a message naming a
// file and line; includes go to an in-memory reader that serves the input
// itself for "self.txt" (so loops are exercised) and nothing else.
#include "fuzz_common.hpp"
#include "pkg/requirements_file.hpp"

namespace {

class SelfReader : public flashfit::pkg::FileReader {
 public:
  explicit SelfReader(std::string_view text) : text_(text) {}
  flashfit::util::Result<std::string> read(const std::string& path) override {
    if (path == "self.txt" || path == "other.txt") return std::string(text_);
    return flashfit::util::input_error("no such file", path);
  }

 private:
  std::string_view text_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace flashfit::pkg;
  const auto text = flashfit::fuzz::as_text(data, size);
  SelfReader reader(text);
  auto parsed = parse_requirements_file(text, "req.txt", reader);
  if (!parsed) {
    FUZZ_CHECK(!parsed.error().message.empty(), "an error without a message");
    FUZZ_CHECK(!parsed.error().context.empty(), "an error without a file and line");
    return 0;
  }
  for (const auto& line : parsed->lines) {
    FUZZ_CHECK(line.requirement.has_value() != line.location.has_value(),
               "a line is both or neither a requirement and a location: " + line.text);
    FUZZ_CHECK(line.line >= 1, "line numbers start at 1");
    for (const auto& hash : line.hashes) {
      FUZZ_CHECK(hash.find(':') != std::string::npos, "hash without algorithm: " + hash);
    }
  }
  return 0;
}
