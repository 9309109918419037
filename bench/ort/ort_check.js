// Runs ONNX Runtime on one input and compares its output with one computed elsewhere:
//   node ort_check.js MODEL INPUT.npy OUTPUT.npy [TOLERANCE]
// Both .npy files hold little-endian float32 arrays (numpy's format 1.0, C order). The model
// runs with graph optimisation "all" on INPUT (its first input), and the relative error of
// OUTPUT against its first output, the largest |a - b| over the largest |b|, must be at most
// TOLERANCE (default 1e-3). Also printed: the largest elementwise relative error (|a - b| /
// max(|b|, 0.01)) and how many elements exceed TOLERANCE by that measure, which near-even
// probabilities of a softmax make sensitive (a logit off by 1e-4 of its size moves them by
// more). Exit status 0 if within, 1 if not, 2 for bad usage or files.
'use strict';
const fs = require('fs');
const path = require('path');
const dir = process.env.DSL_ORT_DIR;
const ort = require(dir ? path.resolve(dir, 'node_modules', 'onnxruntime-node') : 'onnxruntime-node');

function readNpy(file) {
    const b = fs.readFileSync(file);
    if (b.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(`${file}: not a .npy file`);
    const headerLength = b.readUInt16LE(8);
    const header = b.toString('latin1', 10, 10 + headerLength);
    if (!header.includes("'<f4'")) throw new Error(`${file}: not float32`);
    const shape = header.match(/'shape': \(([^)]*)\)/)[1].split(',').filter((s) => s.trim())
                      .map(Number);
    const start = 10 + headerLength;
    const data = new Float32Array(b.buffer.slice(b.byteOffset + start, b.byteOffset + b.length));
    return {shape, data};
}

async function main() {
    const [model, input, output, tol] = process.argv.slice(2);
    if (!output) {
        console.error('usage: node ort_check.js MODEL INPUT.npy OUTPUT.npy [TOLERANCE]');
        process.exit(2);
    }
    const tolerance = Number(tol || 1e-3);
    const x = readNpy(input), ours = readNpy(output);
    const session = await ort.InferenceSession.create(model, {graphOptimizationLevel: 'all'});
    const result = await session.run({[session.inputNames[0]]: new ort.Tensor('float32', x.data,
                                                                              x.shape)});
    const theirs = result[session.outputNames[0]];
    if (theirs.dims.join('x') !== ours.shape.join('x')) {
        console.log(`${path.basename(output)}: shape ${ours.shape.join('x')}, ` +
                    `ONNX Runtime's ${theirs.dims.join('x')}`);
        process.exit(1);
    }
    let worst = 0, worstAbs = 0, largest = 0, over = 0, nan = 0;
    for (let i = 0; i < ours.data.length; i++) {
        const a = ours.data[i], b = theirs.data[i];
        if (Number.isNaN(a) !== Number.isNaN(b)) nan++;
        const err = Math.abs(a - b) / Math.max(Math.abs(b), 1e-2);
        worst = Math.max(worst, err);
        worstAbs = Math.max(worstAbs, Math.abs(a - b));
        largest = Math.max(largest, Math.abs(b));
        if (!(err <= tolerance)) over++;
    }
    const relative = worstAbs / Math.max(largest, 1e-30);
    console.log(`${path.basename(output)} (${ours.shape.join('x')}): relative error ` +
                `${relative.toExponential(2)} (max |difference| ${worstAbs.toExponential(2)}); ` +
                `elementwise max ${worst.toExponential(2)}, ${over} elements over ${tolerance}`);
    process.exit(nan || !(relative <= tolerance) ? 1 : 0);
}
main().catch((e) => {
    console.error(`ort_check: ${e.message}`);
    process.exit(2);
});
