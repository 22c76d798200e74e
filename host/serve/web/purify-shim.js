// Loaded before Debian's DOMPurify (node-dompurify 2.4.1+dfsg+~2.4.0-2+deb12u1). That build's
// security patch left a reference to an undeclared `shadowNode` in sanitize() (a check of the
// root's nesting depth), so every sanitize of text with markup throws a ReferenceError. A
// global of depth 0 lets sanitize run; the per-node nesting checks the same patch added to its
// main loop and to the shadow DOM walk are untouched and still remove what nests too deeply.
globalThis.shadowNode = { __depth: 0 };
