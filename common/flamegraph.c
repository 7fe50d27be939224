// SPDX-License-Identifier: GPL-2.0
/*
 * SVG flame graphs (flamegraph.h).  The stacks are merged into a tree
 * (root "all"; children sorted by name, as flamegraph.pl sorts its folded
 * input), then each node is one <g> holding a <title>, a <rect> and, when
 * it is wide enough, its name cut to fit, laid out with flamegraph.pl's
 * geometry: 1200 px wide, 16 px frames, Verdana 12.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/escape.h"
#include "common/flamegraph.h"
#include "common/log.h"

#define WIDTH		1200.0
#define FRAME_H		16
#define FONT_SIZE	12
#define FONT_WIDTH	0.59
#define XPAD		10.0
#define YPAD_TOP	(FONT_SIZE * 3)
#define YPAD_BOTTOM	(FONT_SIZE * 2 + 10)
#define MIN_WIDTH	0.1

struct node {
	const char *name;
	bool kernel;
	uint64_t value;
	struct node **kids;
	size_t nkids, cap;
};

static struct node *child(struct node *n, const char *name, bool kernel)
{
	struct node *k;
	size_t i;

	for (i = 0; i < n->nkids; i++)
		if (n->kids[i]->kernel == kernel && !strcmp(n->kids[i]->name, name))
			return n->kids[i];
	if (n->nkids == n->cap) {
		n->cap = n->cap ? n->cap * 2 : 4;
		n->kids = xrealloc(n->kids, n->cap * sizeof(*n->kids));
	}
	k = xcalloc(1, sizeof(*k));
	k->name = name;
	k->kernel = kernel;
	n->kids[n->nkids++] = k;
	return k;
}

static int by_name(const void *pa, const void *pb)
{
	const struct node *x = *(struct node *const *)pa, *y = *(struct node *const *)pb;
	int c = strcmp(x->name, y->name);

	return c ? c : (int)x->kernel - (int)y->kernel;
}

static void tree_free(struct node *n)
{
	size_t i;

	for (i = 0; i < n->nkids; i++)
		tree_free(n->kids[i]);
	free(n->kids);
	free(n);
}

static int tree_depth(struct node *n)
{
	int d = 0, k;
	size_t i;

	if (n->nkids > 1)
		qsort(n->kids, n->nkids, sizeof(*n->kids), by_name);
	for (i = 0; i < n->nkids; i++)
		if ((k = tree_depth(n->kids[i])) > d)
			d = k;
	return d + 1;
}

/* @s escaped for XML text and attributes: first as the suite escapes
 * what the traced system controls (no control bytes, valid UTF-8). */
static void xml_puts(FILE *f, const char *s, size_t max)
{
	const char *e = esc_str(s);
	size_t i;

	for (i = 0; e[i] && i < max; i++) {
		switch (e[i]) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(e[i], f);
		}
	}
}

/* flamegraph.pl's "hot" palette, from a hash of the name: the same
 * function has the same colour in every graph. */
static void colour(const char *name, int rgb[3])
{
	uint32_t h = 2166136261u, v[3];
	int i;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	for (i = 0; i < 3; i++) {
		h = h * 1103515245u + 12345u;
		v[i] = (h >> 8) % 1000;
	}
	rgb[0] = 205 + (int)(50 * v[0] / 1000);
	rgb[1] = (int)(230 * v[1] / 1000);
	rgb[2] = (int)(55 * v[2] / 1000);
}

struct layout {
	FILE *f;
	double scale;		/* px per unit of value */
	double total;
	int height;
	const char *unit;
	bool annotate;
};

static void draw(const struct layout *L, const struct node *n, double x, int depth)
{
	double w = (double)n->value * L->scale, cx = x;
	int y = L->height - YPAD_BOTTOM - (depth + 1) * FRAME_H, rgb[3];
	size_t i, chars;
	const char *sfx = n->kernel && L->annotate && n->name[0] != '[' ? "_[k]" : "";

	if (w < MIN_WIDTH)
		return;
	colour(n->name, rgb);
	fputs("<g class=\"func\"><title>", L->f);
	xml_puts(L->f, n->name, (size_t)-1);
	fprintf(L->f, "%s (%llu %s, %.2f%%)</title>", sfx,
		(unsigned long long)n->value, L->unit,
		100.0 * (double)n->value / L->total);
	fprintf(L->f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
		"fill=\"rgb(%d,%d,%d)\" rx=\"2\" ry=\"2\"/>", x, y + 1, w,
		FRAME_H - 1, rgb[0], rgb[1], rgb[2]);
	chars = (size_t)(w / (FONT_SIZE * FONT_WIDTH));
	fprintf(L->f, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + 1 + FRAME_H / 2.0 + 3.5);
	if (chars >= 3) {
		size_t len = strlen(n->name) + strlen(sfx);

		if (len <= chars) {
			xml_puts(L->f, n->name, (size_t)-1);
			fputs(sfx, L->f);
		} else {
			xml_puts(L->f, n->name, chars - 2);
			fputs("..", L->f);
		}
	}
	fputs("</text></g>\n", L->f);
	for (i = 0; i < n->nkids; i++) {
		draw(L, n->kids[i], cx, depth + 1);
		cx += (double)n->kids[i]->value * L->scale;
	}
}

/* Click: zoom on a frame (its ancestors stay, faded); Ctrl-F: search
 * (matches in purple, their share below); Esc or a click on "all": back. */
static const char script[] =
"<script type=\"text/ecmascript\"><![CDATA[\n"
"var W = 1200, PAD = 10, FW = 12 * 0.59, orig = [];\n"
"function init() {\n"
"  var gs = document.getElementsByClassName('func');\n"
"  for (var i = 0; i < gs.length; i++) {\n"
"    var r = gs[i].querySelector('rect');\n"
"    orig.push({g: gs[i], x: +r.getAttribute('x'), w: +r.getAttribute('width'),\n"
"      y: +r.getAttribute('y'), name: gs[i].querySelector('title').textContent.replace(/ \\([^(]*\\)$/, ''),\n"
"      fill: r.getAttribute('fill')});\n"
"    gs[i].onclick = (function (o) { return function () { zoom(o); }; })(orig[i]);\n"
"  }\n"
"}\n"
"function label(o, w) {\n"
"  var t = o.g.querySelector('text'), c = Math.floor(w / FW);\n"
"  t.textContent = c < 3 ? '' : o.name.length <= c ? o.name : o.name.substr(0, c - 2) + '..';\n"
"}\n"
"function place(o, x, w, fade) {\n"
"  var r = o.g.querySelector('rect'), t = o.g.querySelector('text');\n"
"  r.setAttribute('x', x); r.setAttribute('width', w); t.setAttribute('x', x + 3);\n"
"  o.g.style.display = w < 0.1 ? 'none' : ''; o.g.style.opacity = fade ? 0.5 : 1; label(o, w);\n"
"}\n"
"function zoom(z) {\n"
"  var s = (W - 2 * PAD) / z.w;\n"
"  orig.forEach(function (o) {\n"
"    if (o.y > z.y) place(o, PAD, W - 2 * PAD, o.x <= z.x && o.x + o.w >= z.x + z.w - 1e-6);\n"
"    else if (o.x >= z.x - 1e-6 && o.x + o.w <= z.x + z.w + 1e-6) place(o, PAD + (o.x - z.x) * s, o.w * s, false);\n"
"    else place(o, 0, 0, false);\n"
"  });\n"
"  orig.forEach(function (o) { if (o.y > z.y && !(o.x <= z.x && o.x + o.w >= z.x + z.w - 1e-6)) place(o, 0, 0, false); });\n"
"}\n"
"function reset() { orig.forEach(function (o) { place(o, o.x, o.w, false); }); }\n"
"function search() {\n"
"  var re = prompt('Search (regular expression):'), sum = 0, root = orig[0];\n"
"  orig.forEach(function (o) { o.g.querySelector('rect').setAttribute('fill', o.fill); });\n"
"  if (!re) { document.getElementById('matched').textContent = ''; return; }\n"
"  re = new RegExp(re);\n"
"  orig.forEach(function (o) { if (re.test(o.name)) { o.g.querySelector('rect').setAttribute('fill', 'rgb(230,0,230)'); } });\n"
"  var spans = [];\n"
"  orig.forEach(function (o) { if (re.test(o.name) && !spans.some(function (s) { return o.x >= s.x && o.x + o.w <= s.x + s.w; })) { spans.push(o); sum += o.w; } });\n"
"  document.getElementById('matched').textContent = 'Matched: ' + (100 * sum / root.w).toFixed(1) + '%';\n"
"}\n"
"document.addEventListener('keydown', function (e) {\n"
"  if (e.key === 'Escape') reset();\n"
"  if ((e.ctrlKey || e.metaKey) && e.key === 'f') { e.preventDefault(); search(); }\n"
"});\n"
"]]></script>\n";

int flamegraph_write(const struct stackagg *a,
		     const struct stackagg_print_opts *po,
		     const struct flamegraph_opts *o, FILE *f)
{
	struct node *root = xcalloc(1, sizeof(*root));
	struct stackagg_entry **v;
	struct layout L = { .f = f, .annotate = po->annotate };
	size_t i, k, n;
	int depth;

	root->name = "all";
	v = stackagg_sorted(a, &n);
	for (i = 0; i < n; i++) {
		struct node *at = child(root, v[i]->comm, false);
		const char *name;
		bool kernel;

		root->value += v[i]->value;
		at->value += v[i]->value;
		for (k = 0; stackagg_frame(v[i], po, k, &name, &kernel); k++) {
			at = child(at, name, kernel);
			at->value += v[i]->value;
		}
	}
	free(v);
	depth = tree_depth(root);
	L.height = depth * FRAME_H + YPAD_TOP + YPAD_BOTTOM;
	L.total = root->value ? (double)root->value : 1.0;
	L.scale = (WIDTH - 2 * XPAD) / L.total;
	L.unit = o && o->unit ? o->unit : "samples";

	fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
		"\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" onload=\"init()\" "
		"viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\">\n",
		(int)WIDTH, L.height, (int)WIDTH, L.height);
	fputs("<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
	      "<stop stop-color=\"#eeeeee\" offset=\"5%\"/>"
	      "<stop stop-color=\"#eeeeb0\" offset=\"95%\"/></linearGradient></defs>\n"
	      "<style type=\"text/css\">text { font-family: Verdana; font-size: 12px; "
	      "fill: rgb(0,0,0); } .func:hover { stroke: black; stroke-width: 0.5; "
	      "cursor: pointer; }</style>\n", f);
	fputs(script, f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
		"fill=\"url(#background)\"/>\n", (int)WIDTH, L.height);
	fprintf(f, "<text x=\"%d\" y=\"24\" text-anchor=\"middle\" "
		"style=\"font-size: 17px\">", (int)WIDTH / 2);
	xml_puts(f, o && o->title ? o->title : "Flame Graph", (size_t)-1);
	fprintf(f, "</text>\n<text x=\"%d\" y=\"%d\" onclick=\"reset()\">"
		"Reset Zoom</text>\n", (int)XPAD, FONT_SIZE * 2);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" onclick=\"search()\">"
		"Search</text>\n", (int)(WIDTH - XPAD), FONT_SIZE * 2);
	fprintf(f, "<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"></text>\n",
		(int)(WIDTH - XPAD), L.height - FONT_SIZE / 2);
	draw(&L, root, XPAD, 0);
	fputs("</svg>\n", f);
	tree_free(root);
	if (fflush(f) == EOF || ferror(f))
		return -(errno ? errno : EIO);
	return 0;
}
