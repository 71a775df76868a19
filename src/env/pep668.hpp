#pragma once
// PEP 668: an interpreter whose standard library directory holds an
// EXTERNALLY-MANAGED file (Debian's /usr/bin/python3) makes pip refuse to
// install outside a virtual environment. Advice then creates a venv instead
// of printing a command pip will refuse.
#include <filesystem>

#include "env/interpreter.hpp"

namespace flashfit::env {

// The marker's path: sysconfig's "stdlib" for CPython on POSIX,
// <base_prefix>/lib/pythonX.Y/EXTERNALLY-MANAGED.
std::filesystem::path externally_managed_marker(const Interpreter& interpreter);

// Whether pip would refuse: the marker exists and the interpreter is not in a venv.
bool externally_managed(const Interpreter& interpreter);

}  // namespace flashfit::env
