"use strict";
// QR codes (ISO/IEC 18004, model 2) for the page's share links, drawn as SVG: the page loads
// nothing from elsewhere, so it encodes them itself. Byte mode only (the text as UTF-8), error
// correction level L or M, versions 1 to 40, the mask chosen by the standard's penalty rules.
// The construction follows Project Nayuki's public description of the algorithm
// (https://www.nayuki.io/page/creating-a-qr-code-step-by-step); the tables are the standard's.
//
// app.js calls `qrCode.svg(text)`; `qrCode.encode(text)` gives the modules (tests read them).
const qrCode = (() => {
  const SVG = "http://www.w3.org/2000/svg";
  const QUIET = 4;  // light modules around the symbol: scanners need them to find its edges
  // Per level, indexed by version (index 0 unused): error correction codewords per block, and
  // the number of blocks. The format bits say which level a symbol uses.
  const LEVELS = {
    L: { format: 1, ecc: [0, 7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28,
      30, 28, 28, 28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
    blocks: [0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8, 8, 9, 9, 10, 12, 12,
      12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25] },
    M: { format: 0, ecc: [0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28,
      26, 26, 26, 26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28],
    blocks: [0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20,
      21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49] },
  };
  const MASKS = [
    (x, y) => (x + y) % 2 === 0,
    (x, y) => y % 2 === 0,
    (x) => x % 3 === 0,
    (x, y) => (x + y) % 3 === 0,
    (x, y) => (Math.floor(x / 3) + Math.floor(y / 2)) % 2 === 0,
    (x, y) => (x * y) % 2 + (x * y) % 3 === 0,
    (x, y) => ((x * y) % 2 + (x * y) % 3) % 2 === 0,
    (x, y) => ((x + y) % 2 + (x * y) % 3) % 2 === 0,
  ];

  // Modules that hold data: the symbol less its finder, timing and alignment patterns, format
  // and version information.
  function rawDataModules(version) {
    let count = (16 * version + 128) * version + 64;
    if (version >= 2) {
      const align = Math.floor(version / 7) + 2;
      count -= (25 * align - 10) * align - 55;
      if (version >= 7) count -= 36;
    }
    return count;
  }

  const dataCodewords = (version, level) =>
    Math.floor(rawDataModules(version) / 8) - level.ecc[version] * level.blocks[version];

  // Mode indicator, character count, the bytes; the count takes 16 bits from version 10 on.
  const dataBits = (version, bytes) => 4 + (version < 10 ? 8 : 16) + 8 * bytes.length;

  // Reed-Solomon over GF(2^8) with the polynomial x^8 + x^4 + x^3 + x^2 + 1 (0x11D).
  function multiply(x, y) {
    let z = 0;
    for (let i = 7; i >= 0; i--) {
      z = (z << 1) ^ ((z >>> 7) * 0x11D);
      z ^= ((y >>> i) & 1) * x;
    }
    return z;
  }

  function divisor(degree) {
    const result = new Array(degree).fill(0);
    result[degree - 1] = 1;
    let root = 1;
    for (let i = 0; i < degree; i++) {
      for (let j = 0; j < degree; j++) {
        result[j] = multiply(result[j], root);
        if (j + 1 < degree) result[j] ^= result[j + 1];
      }
      root = multiply(root, 0x02);
    }
    return result;
  }

  function remainder(data, generator) {
    const result = new Array(generator.length).fill(0);
    for (const byte of data) {
      const factor = byte ^ result.shift();
      result.push(0);
      generator.forEach((coefficient, i) => { result[i] ^= multiply(coefficient, factor); });
    }
    return result;
  }

  // The data codewords in blocks, each with its error correction, then interleaved: a smudge
  // then costs every block a little rather than one block all it can bear.
  function interleave(data, version, level) {
    const blockCount = level.blocks[version];
    const eccLength = level.ecc[version];
    const raw = Math.floor(rawDataModules(version) / 8);
    const shortBlocks = blockCount - raw % blockCount;
    const shortLength = Math.floor(raw / blockCount);
    const generator = divisor(eccLength);
    const blocks = [];
    for (let i = 0, k = 0; i < blockCount; i++) {
      const part = data.slice(k, k + shortLength - eccLength + (i < shortBlocks ? 0 : 1));
      k += part.length;
      const ecc = remainder(part, generator);
      if (i < shortBlocks) part.push(0);  // a gap, skipped below, so that columns line up
      blocks.push(part.concat(ecc));
    }
    const result = [];
    for (let i = 0; i < blocks[0].length; i++) {
      blocks.forEach((block, j) => {
        if (i !== shortLength - eccLength || j >= shortBlocks) result.push(block[i]);
      });
    }
    return result;
  }

  function codewords(bytes, version, level) {
    const capacity = dataCodewords(version, level) * 8;
    const bits = [];
    const put = (value, length) => {
      for (let i = length - 1; i >= 0; i--) bits.push((value >>> i) & 1);
    };
    put(0b0100, 4);  // byte mode
    put(bytes.length, version < 10 ? 8 : 16);
    for (const byte of bytes) put(byte, 8);
    put(0, Math.min(4, capacity - bits.length));  // terminator
    put(0, (8 - bits.length % 8) % 8);
    const data = [];
    for (let i = 0; i < bits.length; i += 8) {
      data.push(bits.slice(i, i + 8).reduce((byte, bit) => (byte << 1) | bit, 0));
    }
    for (let pad = 0xEC; data.length < capacity / 8; pad ^= 0xEC ^ 0x11) data.push(pad);
    return interleave(data, version, level);
  }

  function alignmentPositions(version, size) {
    if (version === 1) return [];
    const count = Math.floor(version / 7) + 2;
    const step = Math.floor((version * 8 + count * 3 + 5) / (count * 4 - 4)) * 2;
    const result = [6];
    for (let position = size - 7; result.length < count; position -= step) {
      result.splice(1, 0, position);
    }
    return result;
  }

  // A symbol under construction: modules[y][x] (true is dark) and which are function patterns.
  function grid(version) {
    const size = version * 4 + 17;
    const modules = Array.from({ length: size }, () => new Array(size).fill(false));
    const fixed = Array.from({ length: size }, () => new Array(size).fill(false));
    const set = (x, y, dark) => { modules[y][x] = dark; fixed[y][x] = true; };
    for (let i = 0; i < size; i++) {
      set(6, i, i % 2 === 0);
      set(i, 6, i % 2 === 0);
    }
    for (const [cx, cy] of [[3, 3], [size - 4, 3], [3, size - 4]]) {
      for (let dy = -4; dy <= 4; dy++) {
        for (let dx = -4; dx <= 4; dx++) {
          const x = cx + dx;
          const y = cy + dy;
          const ring = Math.max(Math.abs(dx), Math.abs(dy));
          if (x >= 0 && x < size && y >= 0 && y < size) set(x, y, ring !== 2 && ring !== 4);
        }
      }
    }
    const aligns = alignmentPositions(version, size);
    const last = aligns.length - 1;
    aligns.forEach((cx, i) => aligns.forEach((cy, j) => {
      if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) return;
      for (let dy = -2; dy <= 2; dy++) {
        for (let dx = -2; dx <= 2; dx++) {
          set(cx + dx, cy + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
        }
      }
    }));
    if (version >= 7) {
      let rest = version;
      for (let i = 0; i < 12; i++) rest = (rest << 1) ^ ((rest >>> 11) * 0x1F25);
      const bits = version << 12 | rest;
      for (let i = 0; i < 18; i++) {
        const dark = ((bits >>> i) & 1) === 1;
        const a = size - 11 + i % 3;
        const b = Math.floor(i / 3);
        set(a, b, dark);
        set(b, a, dark);
      }
    }
    const symbol = { version, size, modules, fixed, set };
    drawFormat(symbol, 0, 0);  // reserves its modules; drawn again with the chosen mask
    return symbol;
  }

  function drawFormat(symbol, format, mask) {
    const data = format << 3 | mask;
    let rest = data;
    for (let i = 0; i < 10; i++) rest = (rest << 1) ^ ((rest >>> 9) * 0x537);
    const bits = (data << 10 | rest) ^ 0x5412;
    const bit = (i) => ((bits >>> i) & 1) === 1;
    const { size, set } = symbol;
    for (let i = 0; i <= 5; i++) set(8, i, bit(i));
    set(8, 7, bit(6));
    set(8, 8, bit(7));
    set(7, 8, bit(8));
    for (let i = 9; i < 15; i++) set(14 - i, 8, bit(i));
    for (let i = 0; i < 8; i++) set(size - 1 - i, 8, bit(i));
    for (let i = 8; i < 15; i++) set(8, size - 15 + i, bit(i));
    set(8, size - 8, true);  // the dark module, always there
  }

  // The codewords' bits in two-module columns, zigzag from the bottom right, around the
  // function patterns.
  function drawCodewords(symbol, data) {
    const { size, modules, fixed } = symbol;
    let i = 0;
    for (let right = size - 1; right >= 1; right -= 2) {
      if (right === 6) right = 5;  // the vertical timing pattern takes the whole column
      for (let vertical = 0; vertical < size; vertical++) {
        for (let j = 0; j < 2; j++) {
          const x = right - j;
          const upward = ((right + 1) & 2) === 0;
          const y = upward ? size - 1 - vertical : vertical;
          if (fixed[y][x] || i >= data.length * 8) continue;
          modules[y][x] = ((data[i >>> 3] >>> (7 - (i & 7))) & 1) === 1;
          i++;
        }
      }
    }
  }

  function applyMask(symbol, mask) {
    const { size, modules, fixed } = symbol;
    for (let y = 0; y < size; y++) {
      for (let x = 0; x < size; x++) {
        if (!fixed[y][x] && MASKS[mask](x, y)) modules[y][x] = !modules[y][x];
      }
    }
  }

  // The standard's penalty: long runs, 2x2 blocks, finder look-alikes, an uneven dark share.
  // The mask with the least is used, so that scanners do not mistake data for patterns.
  function penalty(modules) {
    const size = modules.length;
    let score = 0;
    const lines = [];
    for (let i = 0; i < size; i++) {
      lines.push(modules[i]);
      lines.push(modules.map((row) => row[i]));
    }
    const lookAlikes = ["10111010000", "00001011101"];
    for (const line of lines) {
      let run = 1;
      for (let i = 1; i <= size; i++) {
        if (i < size && line[i] === line[i - 1]) { run++; continue; }
        if (run >= 5) score += 3 + (run - 5);
        run = 1;
      }
      const text = line.map((dark) => (dark ? "1" : "0")).join("");
      for (const pattern of lookAlikes) {
        for (let at = text.indexOf(pattern); at >= 0; at = text.indexOf(pattern, at + 1)) {
          score += 40;
        }
      }
    }
    let dark = 0;
    for (let y = 0; y < size; y++) {
      for (let x = 0; x < size; x++) {
        if (modules[y][x]) dark++;
        if (x + 1 < size && y + 1 < size && modules[y][x] === modules[y][x + 1] &&
            modules[y][x] === modules[y + 1][x] && modules[y][x] === modules[y + 1][x + 1]) {
          score += 3;
        }
      }
    }
    const total = size * size;
    score += (Math.ceil(Math.abs(dark * 20 - total * 10) / total) - 1) * 10;
    return score;
  }

  // The smallest version that holds `text` at level `ecl` ("L" or "M", M by default).
  function encode(text, { ecl = "M" } = {}) {
    const level = LEVELS[ecl];
    if (!level) throw new Error(`error correction level ${ecl}: only L and M are drawn`);
    const bytes = [...new TextEncoder().encode(text)];
    let version = 1;
    while (version <= 40 && dataBits(version, bytes) > dataCodewords(version, level) * 8) {
      version++;
    }
    if (version > 40) throw new Error(`${bytes.length} bytes do not fit in a QR code`);
    const data = codewords(bytes, version, level);
    let best = null;
    for (let mask = 0; mask < MASKS.length; mask++) {
      const symbol = grid(version);
      drawCodewords(symbol, data);
      applyMask(symbol, mask);
      drawFormat(symbol, level.format, mask);
      const score = penalty(symbol.modules);
      if (!best || score < best.score) best = { score, mask, modules: symbol.modules };
    }
    return { version, size: version * 4 + 17, ecl, mask: best.mask, modules: best.modules };
  }

  // One path of unit squares, in module units with the quiet zone around: the picture scales
  // by its CSS size and stays sharp. `label` is what a screen reader says of it.
  function svg(text, { label = "QR code", ...options } = {}) {
    const code = encode(text, options);
    const side = code.size + 2 * QUIET;
    const steps = [];
    code.modules.forEach((row, y) => row.forEach((dark, x) => {
      if (dark) steps.push(`M${x + QUIET} ${y + QUIET}h1v1h-1z`);
    }));
    const picture = document.createElementNS(SVG, "svg");
    for (const [key, value] of Object.entries({ viewBox: `0 0 ${side} ${side}`, class: "qr",
      role: "img", "aria-label": label, "shape-rendering": "crispEdges",
      "data-version": code.version, "data-size": code.size, "data-ecl": code.ecl,
      "data-mask": code.mask })) {
      picture.setAttribute(key, value);
    }
    const background = document.createElementNS(SVG, "rect");
    for (const [key, value] of Object.entries({ width: side, height: side, fill: "#fff" })) {
      background.setAttribute(key, value);
    }
    const modules = document.createElementNS(SVG, "path");
    modules.setAttribute("d", steps.join(""));
    modules.setAttribute("fill", "#000");
    picture.append(background, modules);
    return picture;
  }

  return { encode, svg };
})();
