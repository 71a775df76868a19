#include "util/error.hpp"

#include <gtest/gtest.h>

using namespace flashfit::util;

TEST(Error, ExitCodesFollowTheReadme) {
  EXPECT_EQ(exit_code(ErrorKind::usage), 2);
  EXPECT_EQ(exit_code(ErrorKind::input), 2);
  EXPECT_EQ(exit_code(ErrorKind::failed), 1);
  EXPECT_EQ(exit_code(ErrorKind::internal), 1);
  EXPECT_EQ(exit_code(ErrorKind::interrupted), 130);
}

TEST(Error, RenderShowsContextMessageAndHint) {
  Error e{ErrorKind::input, "invalid version", "flash-attn==2.8.", "remove the trailing '.'"};
  EXPECT_EQ(render(e),
            "flashfit: flash-attn==2.8.: invalid version\n  hint: remove the trailing '.'");
  auto outer = Error{ErrorKind::failed, "no wheel fits", "", ""}.with_context("resolve");
  EXPECT_EQ(render(outer), "flashfit: resolve: no wheel fits");
  EXPECT_EQ(render(Error{ErrorKind::internal, "boom", "", ""}),
            "flashfit: internal error (please report it): boom");
}

TEST(Error, NestedContextReadsOutsideIn) {
  auto e = Error{ErrorKind::input, "bad", "line 3", ""}.with_context("config.toml");
  EXPECT_EQ(e.context, "config.toml: line 3");
}
