#include "schedule/Schedule.h"

namespace dsl::schedule {

std::string LoopLevel::to_string() const {
    switch (kind) {
        case Kind::Default:
            return "default";
        case Kind::Inlined:
            return "inlined";
        case Kind::Root:
            return "root";
        case Kind::At:
            return func + "." + var;
        case Kind::Innermost:
            return "innermost";
    }
    return "?";
}

}  // namespace dsl::schedule
