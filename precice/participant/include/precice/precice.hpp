// preCICE version 3's C++ API over seam's libprecice (header-only).
#pragma once

#include <precice/Exceptions.hpp>
#include <precice/Participant.hpp>
#include <precice/Tooling.hpp>
#include <precice/Version.h>
#include <precice/span.hpp>
