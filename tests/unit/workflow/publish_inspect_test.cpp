// The pure helpers of publish's inspection step (the step itself runs on real
// torch-extension wheels in tests/integration/test_publish.sh).
#include "workflow/publish_inspect.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace flashfit::workflow
