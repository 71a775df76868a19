// fmt's compiled part, built into flashfit instead of loading Debian's
// libfmt.so at every start (bench/README.md, process floor). fmt's
// format-inl.h holds the definitions libfmt is built from (FMT_FUNC
// functions, non-inline without FMT_HEADER_ONLY); the templates format.h only
// declares are instantiated here for the types fmt's own build instantiates.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {

template FMT_API auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API auto decimal_point_impl(locale_ref) -> wchar_t;

}  // namespace detail
FMT_END_NAMESPACE
