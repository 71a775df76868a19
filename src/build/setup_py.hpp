#pragma once
// What a package's setup.py says about its compile units and its build
// requirements, read without running it. setup.py is a program, and an
// sdist's setup.py is whatever its author (or an attacker) wrote, so only
// plain literals count: the `sources=[...]` string list of an
// `Extension`/`CUDAExtension`/`CppExtension(...)` call (directly, or through
// a name assigned such a list exactly once), its `name=` string, and
// `setup_requires=[...]`. Anything computed (globs, f-strings, list sums,
// comprehensions) is "not literal", said with the reason, never guessed.
// Pure: the caller reads the file (bounded) and passes the text.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"

namespace flashfit::build {

// One extension-module constructor call found in setup.py.
struct SetupExtension {
  std::string constructor;          // "CUDAExtension", "CppExtension", "Extension"
  std::size_t line = 0;             // 1-based line of the constructor's name
  std::optional<std::string> name;  // the module name when it is a string literal
  // The sources when they are a literal list of strings (or a name bound once
  // to one); nullopt otherwise, with the reason in `not_literal`.
  std::optional<std::vector<std::string>> sources;
  std::string not_literal;  // "sources=renamed_sources is not a literal list (line 422)"
};

struct SetupPyFacts {
  std::vector<SetupExtension> extensions;  // in file order
  // setup_requires=[...] when literal: requirement strings as written.
  std::optional<std::vector<std::string>> setup_requires;
};

// Errors (input): text that is not Python source as far as literals go (an
// unterminated string, unbalanced brackets, a NUL byte, more than 1 MiB),
// a literal source path that is absolute, has a ".." component or a control
// character, or a list of more than 10,000 entries. The message names the
// line; setup.py is never run.
util::Result<SetupPyFacts> read_setup_py(std::string_view text);

}  // namespace flashfit::build
