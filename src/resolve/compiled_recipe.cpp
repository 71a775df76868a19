// Looking up the compiled built-in recipes, and rendering them for the
// generator (src/tools/catalog_compile.cpp) as C++ expressions: designated
// initializers, so a field left out or out of order fails the build.
#include "resolve/compiled_recipe.hpp"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <type_traits>

#include "resolve/compiled_catalog.hpp"
#include "util/strings.hpp"

namespace flashfit::resolve {

const CompiledRecipe* find_compiled_recipe(std::string_view file) {
  for (const CompiledRecipe& compiled : compiled_recipes()) {
    if (compiled.file == file) return &compiled;
  }
  return nullptr;
}

pkg::SpecifierSet compiled_specifiers(std::string_view text) {
  // The generator parsed this text back to the set it wrote (render_compiled_recipes).
  return pkg::SpecifierSet::parse(text).value();
}

namespace {

// Each value of a recipe as a C++ expression of its type.
class Renderer {
 public:
  std::string operator()(std::string_view text) const {
    return fmt::format("std::string({}, {})", cpp_string_literal(text), text.size());
  }
  std::string operator()(bool value) const { return value ? "true" : "false"; }
  std::string operator()(int value) const { return fmt::format("{}", value); }
  // fmt writes the shortest text that reads back as the same double.
  std::string operator()(double value) const { return fmt::format("double({})", value); }

  std::string operator()(const pkg::SpecifierSet& set) {
    std::vector<std::string> parts;
    parts.reserve(set.specifiers().size());
    for (const pkg::Specifier& s : set.specifiers()) parts.push_back(s.str());
    const std::string text = util::join(parts, ",");
    auto back = pkg::SpecifierSet::parse(text);
    if (!back || !(*back == set)) {
      problem_ = fmt::format("the specifier set '{}' does not read back as written", text);
    }
    return fmt::format("compiled_specifiers({})", cpp_string_literal(text));
  }
  std::string operator()(const pkg::CudaVersion& v) {
    return fmt::format("pkg::CudaVersion{{.major = {}, .minor = {}}}", v.major, (*this)(v.minor));
  }
  template <class T>
  std::string operator()(const std::optional<T>& value) {
    return value ? (*this)(*value) : "std::nullopt";
  }
  std::string operator()(const std::vector<std::string>& values) {
    return list("std::vector<std::string>", values);
  }
  template <class K>
  std::string operator()(const std::map<K, std::string>& values) {
    std::vector<std::string> items;
    items.reserve(values.size());
    for (const auto& [key, value] : values) {
      items.push_back(fmt::format("{{{}, {}}}", (*this)(key), (*this)(value)));
    }
    return fmt::format("std::map<{}, std::string>{{{}}}",
                       std::is_same_v<K, int> ? "int" : "std::string", util::join(items, ", "));
  }

  std::string operator()(const RecipeSource& s) {
    return fmt::format(
        "RecipeSource{{.name = {}, .kind = static_cast<SourceKind>({}), .description = {}, "
        ".repository = {}, .catalog = {}, .url_template = {}, .api_url = {}, "
        ".labels = static_cast<pkg::VariantScheme>({}), .abi = static_cast<AbiRule>({}), "
        ".enabled_by_default = {}, .third_party = {}}}",
        (*this)(s.name), static_cast<int>(s.kind), (*this)(s.description), (*this)(s.repository),
        (*this)(s.catalog), (*this)(s.url_template), (*this)(s.api_url), static_cast<int>(s.labels),
        static_cast<int>(s.abi), (*this)(s.enabled_by_default), (*this)(s.third_party));
  }
  std::string operator()(const GpuArch& a) {
    return fmt::format("GpuArch{{.major = {}, .minor = {}, .min_cuda = {}}}", a.major, a.minor,
                       (*this)(a.min_cuda));
  }
  std::string operator()(const std::vector<GpuArch>& archs) {
    return list("std::vector<GpuArch>", archs);
  }
  std::string operator()(const ReleaseFacts& f) {
    return fmt::format(
        "ReleaseFacts{{.versions = {}, .sources = {}, .cuda = {}, .cuda_tokens = {}, "
        ".gpu_archs = {}, .ptx = {}, .min_glibc = {}, .min_compute_capability = {}, "
        ".max_compute_capability = {}, .torch = {}, .python = {}, .note = {}}}",
        (*this)(f.versions), (*this)(f.sources), (*this)(f.cuda), (*this)(f.cuda_tokens),
        (*this)(f.gpu_archs), (*this)(f.ptx), (*this)(f.min_glibc),
        (*this)(f.min_compute_capability), (*this)(f.max_compute_capability), (*this)(f.torch),
        (*this)(f.python), (*this)(f.note));
  }
  std::string operator()(const KnownBroken& b) {
    return fmt::format(
        "KnownBroken{{.versions = {}, .sources = {}, .filename_glob = {}, .torch = {}, "
        ".reason = {}, .reference = {}}}",
        (*this)(b.versions), (*this)(b.sources), (*this)(b.filename_glob), (*this)(b.torch),
        (*this)(b.reason), (*this)(b.reference));
  }
  std::string operator()(const BuildKnobs::ArchToken& t) {
    return fmt::format(
        "BuildKnobs::ArchToken{{.token = {}, .min_cc = {}, .max_cc = {}, .min_nvcc = {}}}",
        (*this)(t.token), (*this)(t.min_cc), (*this)(t.max_cc), (*this)(t.min_nvcc));
  }
  std::string operator()(const BuildKnobs::UnitKind& k) {
    return fmt::format(
        "BuildKnobs::UnitKind{{.name = {}, .match = {}, .seconds = {}, .peak_gib = {}, "
        ".note = {}}}",
        (*this)(k.name), (*this)(k.match), (*this)(k.seconds), (*this)(k.peak_gib),
        (*this)(k.note));
  }
  std::string operator()(const BuildKnobs::Measurement& m) {
    return fmt::format(
        "BuildKnobs::Measurement{{.machine = {}, .nvcc = {}, .calibration_seconds = {}, "
        ".reference = {}}}",
        (*this)(m.machine), (*this)(m.nvcc), (*this)(m.calibration_seconds), (*this)(m.reference));
  }
  std::string operator()(const BuildKnobs& b) {
    return fmt::format(
        "BuildKnobs{{.env = {}, .arch_variable = {}, .arch_separator = {}, .arch_tokens = {}, "
        ".default_archs = {}, .jobs_variable = {}, .threads_variable = {}, "
        ".default_threads = {}, .memory_per_thread_gib = {}, .build_requires = {}, "
        ".needs_cuda = {}, .extension = {}, .source_globs = {}, .unit_kinds = {}, "
        ".measured = {}}}",
        (*this)(b.env), (*this)(b.arch_variable), (*this)(b.arch_separator),
        list("std::vector<BuildKnobs::ArchToken>", b.arch_tokens), (*this)(b.default_archs),
        (*this)(b.jobs_variable), (*this)(b.threads_variable), (*this)(b.default_threads),
        (*this)(b.memory_per_thread_gib), (*this)(b.build_requires), (*this)(b.needs_cuda),
        (*this)(b.extension), (*this)(b.source_globs),
        list("std::vector<BuildKnobs::UnitKind>", b.unit_kinds), (*this)(b.measured));
  }
  std::string operator()(const Recipe& r) {
    return fmt::format(
        "Recipe{{\n      .name = {},\n      .summary = {},\n      .aliases = {},\n"
        "      .import_names = {},\n      .binary_module = {},\n      .needs_cuda = {},\n"
        "      .fallback = {},\n      .sources = {},\n      .releases = {},\n"
        "      .known_broken = {},\n      .build = {},\n      .origin = {}}}",
        (*this)(r.name), (*this)(r.summary), (*this)(r.aliases), (*this)(r.import_names),
        (*this)(r.binary_module), (*this)(r.needs_cuda), (*this)(r.fallback),
        list("std::vector<RecipeSource>", r.sources), list("std::vector<ReleaseFacts>", r.releases),
        list("std::vector<KnownBroken>", r.known_broken), (*this)(r.build), (*this)(r.origin));
  }

  const std::optional<std::string>& problem() const { return problem_; }

 private:
  // One item a line: the releases and known-broken entries are long.
  template <class T>
  std::string list(std::string_view type, const std::vector<T>& items) {
    std::string out = std::string(type) + "{";
    for (std::size_t i = 0; i < items.size(); ++i) {
      out += i == 0 ? "\n        " : ",\n        ";
      out += (*this)(items[i]);
    }
    return out + "}";
  }

  std::optional<std::string> problem_;
};

}  // namespace

util::Result<std::string> render_compiled_recipes(const std::vector<RecipeToCompile>& recipes) {
  std::string out =
      "\n// The built-in recipes (recipes/*.toml), compiled by flashfit_catalog_compile;\n"
      "// do not edit.\n"
      "#include \"resolve/compiled_recipe.hpp\"\n\n"
      "namespace flashfit::resolve {\n"
      "namespace {\n";
  std::string table;
  Renderer render;
  for (std::size_t i = 0; i < recipes.size(); ++i) {
    out +=
        fmt::format("\nRecipe recipe_{}() {{\n  return {};\n}}\n", i, render(*recipes[i].recipe));
    table += fmt::format("    {{{}, &recipe_{}}},\n", cpp_string_literal(recipes[i].file), i);
  }
  if (render.problem()) {
    return util::fail(util::ErrorKind::internal, *render.problem(),
                      "compiling the built-in recipes");
  }
  if (recipes.empty()) {
    out +=
        "}  // namespace\n\n"
        "std::span<const CompiledRecipe> compiled_recipes() { return {}; }\n\n"
        "}  // namespace flashfit::resolve\n";
    return out;
  }
  out += fmt::format(
      "\nconst CompiledRecipe recipe_table[] = {{\n{}}};\n"
      "}}  // namespace\n\n"
      "std::span<const CompiledRecipe> compiled_recipes() {{ return {{recipe_table, {}}}; }}\n\n"
      "}}  // namespace flashfit::resolve\n",
      table, recipes.size());
  return out;
}

}  // namespace flashfit::resolve
