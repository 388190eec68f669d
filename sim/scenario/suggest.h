#pragma once
// "Did you mean" for unknown keys.
//
// Contract: suggest() returns the candidate closest to `word` by optimal-string-alignment edit
// distance (insertions, deletions, substitutions and swaps of adjacent characters, each 1), if
// that distance is small for the word's length (1 up to 4 characters, 2 up to 8, 3 beyond) and
// smaller than the word itself; ties go to the candidate listed first. Otherwise "". Pure.

#include <string>
#include <string_view>
#include <vector>

namespace fdsim::scenario {

size_t edit_distance(std::string_view a, std::string_view b);

std::string suggest(std::string_view word, const std::vector<std::string>& candidates);

// "unknown key" or "unknown key (did you mean 'seed'?)".
std::string unknown_key_message(std::string_view key, const std::vector<std::string>& known);

}  // namespace fdsim::scenario
