#include "resolve/upstream_guess.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace flashfit::resolve {
namespace {

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

}  // namespace

std::optional<UpstreamGuess> upstream_guess(const Recipe& recipe, const std::string& version,
                                            const ResolveTarget& target) {
  const RecipeSource* source = recipe.source("upstream");
  auto parsed = pkg::Version::parse(version);
  auto torch = target.torch_minor();
  if (!source || !parsed || !torch || !target.python || !target.cxx11_abi || target.arch.empty())
    return std::nullopt;
  if (!target.torch_cuda || !*target.torch_cuda) return std::nullopt;
  ReleaseFacts facts = recipe.facts_for(*parsed, "upstream", std::nullopt);
  auto token = facts.cuda_tokens.find((*target.torch_cuda)->major);
  if (token == facts.cuda_tokens.end()) return std::nullopt;
  std::string dist = recipe.name;
  std::replace(dist.begin(), dist.end(), '-', '_');
  std::string py = fmt::format("cp{}{}", target.python->major, target.python->minor);
  UpstreamGuess guess;
  guess.filename =
      fmt::format("{}-{}+{}torch{}cxx11abi{}-{}-{}-linux_{}.whl", dist, version, token->second,
                  torch->str(), *target.cxx11_abi ? "TRUE" : "FALSE", py, py, target.arch);
  std::string url = replace_all(source->url_template, "{repository}", source->repository);
  url = replace_all(url, "{tag}", "v" + version);
  // GitHub's download URLs spell '+' as %2B (the catalog stores them so).
  guess.url = replace_all(url, "{filename}", replace_all(guess.filename, "+", "%2B"));
  return guess;
}

}  // namespace flashfit::resolve
