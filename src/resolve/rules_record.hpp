#pragma once
// How a rule records what it finds on a Judged (rules.cpp, rules_tags.cpp):
// reasons, notes and assumptions, their words built only when explaining.
#include <string>
#include <string_view>

#include "resolve/candidate.hpp"

namespace flashfit::resolve::rules_detail {

// Messages are built only when explaining: a first pass over thousands of
// wheels needs the codes alone.
template <class Message>
void reject(Judged& j, ReasonCode code, Message message) {
  // Room for the usual few reasons at once, not a growth series per wheel.
  if (j.reasons.empty()) j.reasons.reserve(4);
  j.reasons.push_back(Reason{code, j.explained ? message() : std::string()});
}

// A note's text is copied only when explaining (most are literals).
inline void note(Judged& j, std::string_view text) {
  if (j.explained) j.notes.emplace_back(text);
}

// A rule skipped for an unknown fact: recorded on both passes (it ranks the
// candidate), with its message only when explaining.
template <class Message>
void assume(Judged& j, const char* fact, const char* flag, Message message) {
  j.assumptions.push_back(Assumption{fact, j.explained ? message() : std::string(), flag});
}

}  // namespace flashfit::resolve::rules_detail
