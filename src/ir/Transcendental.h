#pragma once
/// The intrinsics that are library calls of tens of instructions rather than one.
#include "ir/IR.h"

namespace dsl::ir {

/// Whether `op` is exp, log, pow, sin, cos, tan or atan2.
inline bool is_transcendental(Call::Intrinsic op) {
    switch (op) {
        case Call::Intrinsic::Exp:
        case Call::Intrinsic::Log:
        case Call::Intrinsic::Pow:
        case Call::Intrinsic::Sin:
        case Call::Intrinsic::Cos:
        case Call::Intrinsic::Tan:
        case Call::Intrinsic::Atan2:
            return true;
        default:
            return false;
    }
}

}  // namespace dsl::ir
