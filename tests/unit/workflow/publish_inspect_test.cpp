// The pure helpers of publish's inspection step (the step itself runs on real
// torch-extension wheels in tests/integration/test_publish.sh).
#include "workflow/publish_inspect.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "../temp_dir.hpp"

namespace flashfit::workflow {
namespace {

TEST(PublishInspect, RequiresPythonFromHeadersOnly) {
  EXPECT_EQ(requires_python_of("Name: a\nRequires-Python: >=3.9, <4 \nVersion: 1\n\n"),
            ">=3.9, <4");
  EXPECT_EQ(requires_python_of("Name: a\r\nrequires-python:>=3.8\r\n\r\n"), ">=3.8");
  EXPECT_EQ(requires_python_of("Name: a\n\nRequires-Python: >=3.9\n"), "");  // in the body
  EXPECT_EQ(requires_python_of(""), "");
  EXPECT_EQ(requires_python_of(std::string("\0\xff\n", 3)), "");
}

TEST(PublishInspect, CudaRuntimeMajorFromNeededNames) {
  EXPECT_EQ(cudart_major("libcudart.so.12"), 12);
  EXPECT_EQ(cudart_major("libcudart.so.11.0"), 11);
  EXPECT_FALSE(cudart_major("libcudart.so."));
  EXPECT_FALSE(cudart_major("libcudart.so"));
  EXPECT_FALSE(cudart_major("libc10.so"));
}

// The pool: every input gets its candidate, in input order, whatever the
// number of threads; unreadable inputs are refusals, not errors.
TEST(PublishInspect, InspectAllKeepsInputOrderOnAnyNumberOfThreads) {
  test::TempDir tmp("publish-inspect");
  std::vector<std::filesystem::path> wheels;
  for (int i = 0; i < 13; ++i) {
    // Odd ones are not wheel names; even ones are named like wheels but are not zips.
    const auto name = i % 2 ? "not a wheel " + std::to_string(i) + ".whl"
                            : "p" + std::to_string(i) + "-1.0-py3-none-any.whl";
    std::ofstream(tmp.path() / name) << "not a zip " << i;
    wheels.push_back(tmp.path() / name);
  }
  for (unsigned threads : {1u, 3u, 8u, 0u}) {
    std::vector<std::string> said;
    auto out = inspect_all_for_publish(
        wheels, tmp.path(), [&](std::string_view line) { said.emplace_back(line); }, threads);
    ASSERT_EQ(out.size(), wheels.size()) << threads;
    EXPECT_EQ(said.size(), wheels.size()) << threads;
    for (std::size_t i = 0; i < wheels.size(); ++i) {
      EXPECT_EQ(out[i].path, wheels[i]) << threads;
      EXPECT_EQ(out[i].facts.filename, wheels[i].filename().string());
      ASSERT_TRUE(out[i].refusal) << wheels[i];
      if (i % 2) {
        EXPECT_NE(out[i].refusal->find("not a wheel file name"), std::string::npos);
      }
    }
  }
  EXPECT_TRUE(inspect_all_for_publish({}, tmp.path(), {}).empty());
}

}  // namespace
}  // namespace flashfit::workflow
