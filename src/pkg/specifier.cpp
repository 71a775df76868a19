// Placeholder: implemented by the PEP 440 work.
#include "pkg/specifier.hpp"
