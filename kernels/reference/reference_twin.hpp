// `reference`: the plain host all-reduce every other variant's host twin is checked against.
#pragma once

#include "arbench/variant.hpp"

namespace arbench {

VariantEntry reference_entry();

}  // namespace arbench
