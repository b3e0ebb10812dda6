/**
 * The script `mutool run` executes for the first pass (MupdfPass.ts): mutool's JavaScript (MuJS, ES5).
 *
 * Kept as a TypeScript string rather than a .js file beside the module (as office-driver.py sits
 * beside OfficeConverter.ts): redaction runs in the PDF worker, bundled by esbuild
 * (engine/WorkerBundle.ts) into node_modules/.cache/docstack, where `import.meta.url` names the
 * bundle and a file next to this module is not found. A text import would be inlined by esbuild, but
 * Node 20 (tsx, vitest) has none. A string constant is part of the bundle and the same under tsx.
 *
 * Arguments: input, output, regions file, then "redact", or "decrypt" to only write the file back
 * decrypted. Redact marks already on a page would be applied along with the regions, so they are
 * deleted first: the regions are the whole request. applyRedactions(blackBoxes, imageMethod): no boxes
 * (the second pass draws them in the asked colour), image method 2 replaces only the covered pixels.
 * Saved "decrypt" so pdf-lib can read it, "compress" so rewritten images are not stored raw.
 */
export const MUTOOL_SCRIPT = String.raw`
var input = scriptArgs[0], output = scriptArgs[1], regions = JSON.parse(read(scriptArgs[2])), mode = scriptArgs[3];
function refuse(message) { throw new Error("REDACTION: " + message); }
var doc;
try { doc = new PDFDocument(input); doc.countPages(); } catch (e) { refuse("The file is not a readable PDF: " + e.message); }
if (doc.needsPassword()) refuse("The PDF is password-protected and cannot be redacted");
var pages = doc.countPages(), byPage = {};
if (pages === 0) refuse("The file is not a readable PDF: no pages were found");
regions.forEach(function (r) {
  if (r.page >= pages) refuse("Page " + (r.page + 1) + " does not exist: the document has " + pages + " page" + (pages === 1 ? "" : "s"));
  (byPage[r.page] = byPage[r.page] || []).push(r.rect);
});
if (mode === "redact") Object.keys(byPage).forEach(function (index) {
  var page = doc.loadPage(Number(index)), m = page.getTransform();
  page.getAnnotations().forEach(function (a) { if (a.getType() === "Redact") page.deleteAnnotation(a); });
  byPage[index].forEach(function (rect) {
    var xs = [], ys = [];
    [[rect[0], rect[1]], [rect[2], rect[3]], [rect[0], rect[3]], [rect[2], rect[1]]].forEach(function (p) {
      xs.push(m[0] * p[0] + m[2] * p[1] + m[4]);
      ys.push(m[1] * p[0] + m[3] * p[1] + m[5]);
    });
    page.createAnnotation("Redact").setRect([Math.min.apply(null, xs), Math.min.apply(null, ys), Math.max.apply(null, xs), Math.max.apply(null, ys)]);
  });
  try { page.applyRedactions(false, 2); } catch (e) { refuse("Page " + (Number(index) + 1) + " cannot be redacted: " + e.message); }
});
doc.save(output, "decrypt,compress");
`
