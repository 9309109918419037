#pragma once
/// The umbrella header: everything a dsl user writes.

#include "dsl/Buffer.h"
#include "dsl/Error.h"
#include "dsl/Expr.h"
#include "dsl/Type.h"
#include "dsl/Var.h"
