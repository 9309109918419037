// Runs ONNX Runtime on one input and compares its output with one computed elsewhere:
//   node ort_check.js MODEL INPUT.npy OUTPUT.npy [TOLERANCE]
// Both .npy files hold little-endian float32 arrays (numpy's format 1.0, C order). The model
// runs with graph optimisation "all" on INPUT (its first input); every element b of its first
// output and a of OUTPUT must have |a - b| <= TOLERANCE * max(|b|, 0.01) (default tolerance
// 1e-3: relative, and absolute for values under 0.01, such as the near-zero probabilities of
// a softmax). Prints the largest errors; exit status 0 if within, 1 if not, 2 for bad usage.
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
    let worst = 0, worstAbs = 0, bad = 0;
    for (let i = 0; i < ours.data.length; i++) {
        const a = ours.data[i], b = theirs.data[i];
        const err = Math.abs(a - b) / Math.max(Math.abs(b), 1e-2);
        worst = Math.max(worst, err);
        worstAbs = Math.max(worstAbs, Math.abs(a - b));
        if (!(err <= tolerance)) bad++;
    }
    console.log(`${path.basename(output)} (${ours.shape.join('x')}): max relative error ` +
                `${worst.toExponential(2)}, max absolute ${worstAbs.toExponential(2)}, ` +
                `${bad} elements over ${tolerance}`);
    process.exit(bad ? 1 : 0);
}
main().catch((e) => {
    console.error(`ort_check: ${e.message}`);
    process.exit(2);
});
