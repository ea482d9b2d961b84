// preCICE's exception type. seam's libprecice stops the program on an
// error as preCICE does, so it never throws this; adapters may catch it.
#pragma once

#include <stdexcept>
#include <string>

namespace precice {
class Error : public std::runtime_error {
public:
  explicit Error(const std::string &what_arg) : std::runtime_error(what_arg) {}
};
} // namespace precice
