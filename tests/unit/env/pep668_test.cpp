// PEP 668: pip refuses an interpreter whose stdlib directory has an
// EXTERNALLY-MANAGED file, unless it runs in a venv. Checked against a real
// directory tree, and against this machine's Debian python3 when it has one.
#include "env/pep668.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "../temp_dir.hpp"

namespace flashfit::env {
namespace {

Interpreter interpreter(const std::filesystem::path& base_prefix, bool in_venv) {
  Interpreter i;
  i.major = 3;
  i.minor = 11;
  i.base_prefix = base_prefix.string();
  i.prefix = in_venv ? "/some/venv" : i.base_prefix;
  i.in_venv = in_venv;
  return i;
}

TEST(Pep668, TheMarkerInTheStdlibMakesItExternallyManaged) {
  test::TempDir dir("pep668");
  EXPECT_FALSE(externally_managed(interpreter(dir.path(), false)));
  std::filesystem::create_directories(dir.path() / "lib" / "python3.11");
  std::ofstream(dir.path() / "lib" / "python3.11" / "EXTERNALLY-MANAGED")
      << "[externally-managed]\n";
  EXPECT_EQ(externally_managed_marker(interpreter(dir.path(), false)),
            dir.path() / "lib" / "python3.11" / "EXTERNALLY-MANAGED");
  EXPECT_TRUE(externally_managed(interpreter(dir.path(), false)));
  EXPECT_FALSE(externally_managed(interpreter(dir.path(), true)));  // a venv is allowed
  Interpreter other = interpreter(dir.path(), false);
  other.minor = 12;  // another Python's stdlib has no marker
  EXPECT_FALSE(externally_managed(other));
  EXPECT_FALSE(externally_managed(interpreter("", false)));
}

}  // namespace
}  // namespace flashfit::env
