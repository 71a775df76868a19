#pragma once
// Itanium C++ names for people: "_ZNK2at10TensorBase8toStringEv" ->
// "at::TensorBase::toString() const". Reports name the symbols the way the
// import error does (mangled) and the way a reader recognises them.

#include <string>
#include <string_view>

namespace flashfit::binary {

// The demangled name, or the input unchanged when it is not a mangled C++
// name (C symbols, garbage). Never throws on hostile input.
std::string demangle(std::string_view mangled);

}  // namespace flashfit::binary
