#pragma once
/// The umbrella header: everything a dsl user writes.

// The standard headers a Halide program gets from Halide.h (so that `namespace Halide = dsl;`
// keeps such a program compiling): C math (sin(int) then calls the C function, not dsl::sin),
// assert, iostream and printf, the containers, streams, <random> and <functional>.
#include <algorithm>
#include <atomic>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "dsl/Argument.h"
#include "dsl/BoundaryConditions.h"
#include "dsl/Buffer.h"
#include "dsl/Dimension.h"
#include "dsl/Error.h"
#include "dsl/Expr.h"
#include "dsl/Extern.h"
#include "dsl/Float16.h"
#include "dsl/Func.h"
#include "dsl/Generator.h"
#include "dsl/ImageIO.h"
#include "dsl/InlineReductions.h"
#include "dsl/JIT.h"
#include "dsl/Math.h"
#include "dsl/MemoryType.h"
#include "dsl/NPU.h"
#include "dsl/Param.h"
#include "dsl/Pipeline.h"
#include "dsl/Print.h"
#include "dsl/RDom.h"
#include "dsl/Random.h"
#include "dsl/Target.h"
#include "dsl/Type.h"
#include "dsl/Var.h"
