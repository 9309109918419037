#pragma once
/// The umbrella header: everything a dsl user writes.

#include "dsl/Argument.h"
#include "dsl/BoundaryConditions.h"
#include "dsl/Buffer.h"
#include "dsl/Dimension.h"
#include "dsl/Error.h"
#include "dsl/Expr.h"
#include "dsl/Func.h"
#include "dsl/Generator.h"
#include "dsl/ImageIO.h"
#include "dsl/InlineReductions.h"
#include "dsl/Param.h"
#include "dsl/RDom.h"
#include "dsl/Target.h"
#include "dsl/Type.h"
#include "dsl/Var.h"
