// Answers requirements_file_cases.py lines with pkg::parse_requirements_file
// (format in that file); "inc.txt" is served with the same content the
// oracle writes.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "line_evaluator.hpp"
#include "pkg/requirements_file.hpp"

namespace {

class IncludeReader : public flashfit::pkg::FileReader {
 public:
  flashfit::util::Result<std::string> read(const std::string& path) override {
    if (path == "inc.txt") {
      return "pandas==2.0 --hash=sha256:" + std::string(64, 'b') + "\n# included\n";
    }
    return flashfit::util::input_error("no such file", path);
  }
};

std::string answer(const std::string& line) {
  const std::string text = nlohmann::json::parse(line).get<std::string>();
  IncludeReader reader;
  auto parsed = flashfit::pkg::parse_requirements_file(text, "req.txt", reader);
  if (!parsed) return "ERR";
  auto out = nlohmann::json::array();
  for (const auto& entry : parsed->lines) {
    auto hashes = entry.hashes;
    std::sort(hashes.begin(), hashes.end());
    out.push_back({entry.text, entry.constraint, hashes});
  }
  return out.dump();
}

}  // namespace

int main() {
  return run_line_evaluator(answer);
}
