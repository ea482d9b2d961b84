// preCICE's free functions that seam provides.
#pragma once

#include <string>

#include <precice/preciceC.h>

namespace precice {
inline std::string getVersionInformation()
{
  return precicec_getVersionInformation();
}
} // namespace precice
