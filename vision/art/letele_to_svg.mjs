#!/usr/bin/env node
// Turn @letele/playing-cards' React components into standalone SVG files.
//
//   node letele_to_svg.mjs <package>/dist/index.esm.js <out-dir>
//
// The package (CC0, Adrian Kennard's card designs converted by svgr) ships one React component per
// card whose body is a React.createElement("svg", ...) tree. We evaluate the bundle with a fake
// React that builds a plain tree, call every exported component with no props and write
// <out-dir>/<export name>.svg (Ha.svg, S10.svg, Cq.svg, J1.svg, B1.svg...). Plain Node, no packages.
import fs from "node:fs";
import path from "node:path";

// SVG attributes that really are camelCase; every other camelCase prop is a kebab-case attribute.
const CAMEL_ATTRIBUTES = new Set([
  "viewBox", "preserveAspectRatio", "patternUnits", "patternContentUnits", "patternTransform",
  "gradientUnits", "gradientTransform", "clipPathUnits", "maskUnits", "maskContentUnits",
  "markerUnits", "markerWidth", "markerHeight", "refX", "refY", "stdDeviation", "spreadMethod",
  "textLength", "lengthAdjust", "startOffset", "filterUnits", "primitiveUnits", "baseFrequency",
  "numOctaves", "kernelMatrix", "tableValues", "pathLength", "attributeName", "repeatCount",
]);
const RENAMED = {
  className: "class", htmlFor: "for", xlinkHref: "xlink:href", xmlnsXlink: "xmlns:xlink",
  xmlSpace: "xml:space", xmlLang: "xml:lang",
};

function attributeName(prop) {
  if (prop in RENAMED) return RENAMED[prop];
  if (CAMEL_ATTRIBUTES.has(prop) || !/[A-Z]/.test(prop)) return prop;
  return prop.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase());
}

function escape(text) {
  return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}

function styleText(style) {
  return Object.entries(style).map(([k, v]) => `${attributeName(k)}:${v}`).join(";");
}

const fakeReact = {
  createElement(type, props, ...children) {
    if (typeof type === "function") return type({ ...(props || {}), children });
    return { type, props: props || {}, children: children.flat(Infinity) };
  },
};

function serialise(node) {
  if (node === null || node === undefined || node === false || node === true) return "";
  if (typeof node !== "object") return escape(node);
  let attrs = "";
  for (const [prop, value] of Object.entries(node.props)) {
    if (prop === "children" || value === null || value === undefined || value === false) continue;
    const text = prop === "style" && typeof value === "object" ? styleText(value) : value;
    attrs += ` ${attributeName(prop)}="${escape(text)}"`;
  }
  const inner = node.children.map(serialise).join("");
  return inner ? `<${node.type}${attrs}>${inner}</${node.type}>` : `<${node.type}${attrs}/>`;
}

function loadComponents(source) {
  const body = source
    .split("\n").filter((line) => !/^\s*import\s/.test(line)).join("\n")
    .replace(/export\s*\{([^}]*)\}\s*;?/, (_, list) => {
      const pairs = list.split(",").map((s) => s.trim()).filter(Boolean).map((item) => {
        const [local, exported = local] = item.split(/\s+as\s+/);
        return `${JSON.stringify(exported)}: ${local}`;
      });
      return `return {${pairs.join(", ")}};`;
    });
  if (!/return \{/.test(body)) throw new Error("no `export { ... }` list found in the bundle");
  return new Function("React", "_extends", body)(fakeReact, Object.assign);
}

function toSvg(tree) {
  if (!tree || tree.type !== "svg") throw new Error("component did not return an <svg> element");
  const props = { ...tree.props };
  props.xmlns ??= "http://www.w3.org/2000/svg";
  props.xmlnsXlink ??= "http://www.w3.org/1999/xlink";
  return '<?xml version="1.0" encoding="UTF-8"?>\n' + serialise({ ...tree, props }) + "\n";
}

function main([bundle, outDir]) {
  if (!bundle || !outDir) {
    console.error("usage: node letele_to_svg.mjs <dist/index.esm.js> <out-dir>");
    process.exit(2);
  }
  const components = loadComponents(fs.readFileSync(bundle, "utf8"));
  fs.mkdirSync(outDir, { recursive: true });
  const names = Object.keys(components).sort();
  for (const name of names) {
    fs.writeFileSync(path.join(outDir, `${name}.svg`), toSvg(components[name]({})));
  }
  console.log(`${names.length} SVG files written to ${outDir}`);
}

main(process.argv.slice(2));
