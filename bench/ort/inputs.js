// The inputs of ort_bench.js and ort_profile.js: seeded pseudo-random floats in [-1, 1) of one
// shape, the same at every run (a linear congruential sequence).
'use strict';

function seededFeeds(ort, name, shape) {
    const n = shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(n);
    let state = 7;
    for (let i = 0; i < n; i++) {
        state = (state * 1103515245 + 12345) >>> 0;
        data[i] = state / 2147483648 - 1;
    }
    return {[name]: new ort.Tensor('float32', data, shape)};
}

module.exports = {seededFeeds};
