#pragma once
/// The NN operator library (docs/nn.md): tensors, the operators, ONNX models and .npy files.

#include "dsl/Math.h"
#include "dsl/nn/Conv.h"
#include "dsl/nn/Elementwise.h"
#include "dsl/nn/Linear.h"
#include "dsl/nn/Model.h"
#include "dsl/nn/Movement.h"
#include "dsl/nn/Norm.h"
#include "dsl/nn/Npy.h"
#include "dsl/nn/Quantize.h"
#include "dsl/nn/Recurrent.h"
#include "dsl/nn/QuantizeModel.h"
#include "dsl/nn/Reduce.h"
#include "dsl/nn/Resize.h"
#include "dsl/nn/Selection.h"
#include "dsl/nn/Spectral.h"
#include "dsl/nn/Tensor.h"
