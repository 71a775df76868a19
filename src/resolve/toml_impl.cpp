// toml++'s compiled part (its TOML_IMPLEMENTATION mode), built into flashfit
// instead of loading Debian's libtomlplusplus.so at every start
// (bench/README.md, process floor); every other file includes toml++ with
// TOML_HEADER_ONLY=0 (src/CMakeLists.txt), so this is its one definition.
#define TOML_IMPLEMENTATION 1
#include <toml++/toml.h>
