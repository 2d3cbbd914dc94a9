// ONNX Runtime (onnxruntime-node, CPU) as a line-oriented server for python/decoda/ort.py.
//
// Usage: node ort_run.js            (requests on stdin, one JSON object per line)
//
// Requests and replies (each reply is one stdout line "@@ORT <json>"; anything else that
// reaches stdout is not a reply):
//   {"cmd":"load","model":PATH,"threads":N,"optimization":"all"|"extended"|"basic"|"disabled"}
//       -> {"ok":true,"session":ID,"inputs":[names],"outputs":[names]}
//   {"cmd":"run","session":ID,"dir":DIR,"inputs":[{"name","dtype","shape","file"}]}
//       -> {"ok":true,"outputs":[{"name","dtype","shape","file"}]}   (files written under DIR)
//   {"cmd":"bench","session":ID,"dir":DIR,"inputs":[...],"iters":N,"warmup":K}
//       -> {"ok":true,"times":[seconds per run]}
//   {"cmd":"close","session":ID} -> {"ok":true}
//   failures -> {"ok":false,"error":MESSAGE}
// Tensor files hold raw little-endian data in C order; bool is one byte per element.
// The onnxruntime-node package is found through DECODA_ORT_NODE_MODULES (a node_modules
// directory), else through Node's own resolution.
'use strict';

const fs = require('fs');
const path = require('path');
const readline = require('readline');

function loadOrt() {
  const dir = process.env.DECODA_ORT_NODE_MODULES;
  const candidates = dir ? [path.join(dir, 'onnxruntime-node')] : [];
  candidates.push('onnxruntime-node');
  let lastError = null;
  for (const c of candidates) {
    try {
      return require(c);
    } catch (e) {
      lastError = e;
    }
  }
  throw new Error(`cannot load onnxruntime-node (${candidates.join(', ')}): ` +
                  `${lastError && lastError.message}`);
}

const ARRAYS = {
  float32: Float32Array, float64: Float64Array, float16: Uint16Array, int64: BigInt64Array,
  int32: Int32Array, int16: Int16Array, int8: Int8Array, uint8: Uint8Array,
  uint16: Uint16Array, bool: Uint8Array,
};

function reply(obj) {
  process.stdout.write('@@ORT ' + JSON.stringify(obj) + '\n');
}

function readTensor(ort, dir, spec) {
  const Arr = ARRAYS[spec.dtype];
  if (!Arr) throw new Error(`input '${spec.name}': unsupported dtype ${spec.dtype}`);
  const buf = fs.readFileSync(path.join(dir, spec.file));
  const count = spec.shape.reduce((a, b) => a * b, 1);
  if (buf.byteLength !== count * Arr.BYTES_PER_ELEMENT) {
    throw new Error(`input '${spec.name}': ${buf.byteLength} bytes for shape ` +
                    `[${spec.shape}] of ${spec.dtype}`);
  }
  // A fresh ArrayBuffer: Buffer's pooled memory is neither owned nor aligned.
  const data = new Arr(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
  return new ort.Tensor(spec.dtype, data, spec.shape);
}

function feedsOf(ort, req) {
  const feeds = {};
  for (const spec of req.inputs) feeds[spec.name] = readTensor(ort, req.dir, spec);
  return feeds;
}

async function main() {
  let ort = null;
  const sessions = new Map();
  let nextId = 1;
  const rl = readline.createInterface({input: process.stdin, crlfDelay: Infinity});
  for await (const line of rl) {
    if (!line.trim()) continue;
    let req;
    try {
      req = JSON.parse(line);
      if (!ort) ort = loadOrt();
      if (req.cmd === 'load') {
        const opts = {
          graphOptimizationLevel: req.optimization || 'all',
          intraOpNumThreads: req.threads || 1,
          interOpNumThreads: 1,
          executionMode: 'sequential',
          executionProviders: ['cpu'],
        };
        const session = await ort.InferenceSession.create(req.model, opts);
        const id = nextId++;
        sessions.set(id, session);
        reply({ok: true, session: id, inputs: session.inputNames, outputs: session.outputNames});
      } else if (req.cmd === 'run') {
        const session = sessions.get(req.session);
        if (!session) throw new Error(`no session ${req.session}`);
        const results = await session.run(feedsOf(ort, req));
        const outputs = [];
        session.outputNames.forEach((name, i) => {
          const t = results[name];
          if (!ARRAYS[t.type]) throw new Error(`output '${name}': unsupported dtype ${t.type}`);
          const file = `out_${i}.bin`;
          const d = t.data;
          fs.writeFileSync(path.join(req.dir, file),
                           Buffer.from(d.buffer, d.byteOffset, d.byteLength));
          outputs.push({name, dtype: t.type, shape: t.dims.map(Number), file});
        });
        reply({ok: true, outputs});
      } else if (req.cmd === 'bench') {
        const session = sessions.get(req.session);
        if (!session) throw new Error(`no session ${req.session}`);
        const feeds = feedsOf(ort, req);
        for (let i = 0; i < (req.warmup ?? 1); i++) await session.run(feeds);
        const times = [];
        for (let i = 0; i < (req.iters || 10); i++) {
          const t0 = process.hrtime.bigint();
          await session.run(feeds);
          times.push(Number(process.hrtime.bigint() - t0) / 1e9);
        }
        reply({ok: true, times});
      } else if (req.cmd === 'close') {
        const session = sessions.get(req.session);
        if (session) {
          sessions.delete(req.session);
          if (session.release) await session.release();
        }
        reply({ok: true});
      } else {
        throw new Error(`unknown command '${req.cmd}'`);
      }
    } catch (e) {
      reply({ok: false, error: String(e && e.message ? e.message : e)});
    }
  }
}

main().catch((e) => {
  process.stderr.write(`ort_run.js: ${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
});
