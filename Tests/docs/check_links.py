#!/usr/bin/env python3
"""Checks that every internal link of the repository's documentation resolves.

Usage: python3 Tests/docs/check_links.py [FILE ...]
Without files it checks README.md, docs/**/*.md and every page of every DocC catalog under
Sources/ (Sources/*/*.docc/**/*.md). Exits 1, naming file, line and link, when one does not
resolve; before that it shows that it can fail, on documents broken on purpose.

What is checked, outside fenced code blocks and code spans:
- every relative link and image (`[text](path)`, `[id]: path`, `href="path"`, `src="path"`)
  names a file or folder that exists inside the repository (a link out of it, such as one into a
  sibling checkout, is refused: the repository's documents must stand alone);
- a `#fragment` on a Markdown file (or alone, for the same file) names one of its headings, as
  GitHub makes their anchors (lower case, punctuation dropped, spaces as hyphens, `-1`, `-2` for
  repeats), or an explicit `<a id>`; on another file only GitHub's line anchors (`#L12`,
  `#L12-L20`) are accepted;
- in a DocC catalog: `<doc:Name>` names a page of the same catalog; a symbol link (``Name``,
  ``Name/member(...)``) names a public type of the catalog's module (and a member declared in
  that module); a relative link does not leave the catalog (DocC would render it dead); and one
  page is the landing page, titled with the module's name.
Links with a scheme (https:, mailto:) are not followed.
"""
import pathlib
import re
import sys
import tempfile
import unicodedata
import urllib.parse

ROOT = pathlib.Path(__file__).resolve().parents[2]

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
ATX_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
SETEXT_UNDERLINE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
INLINE_LINK = re.compile(r"\]\(\s*(<[^>\n]*>|[^)\s]+)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HTML_ATTRIBUTE = re.compile(r"\b(?:href|src)\s*=\s*\"([^\"]*)\"")
EXPLICIT_ANCHOR = re.compile(r"<a\s+(?:id|name)\s*=\s*\"([^\"]+)\"")
CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
DOC_LINK = re.compile(r"<doc:([^>#\s]+)(?:#[^>\s]*)?>")
SYMBOL_LINK = re.compile(r"``([^`\s]+)``")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
LINE_ANCHOR = re.compile(r"^L\d+(-L\d+)?$")
DECLARATION = re.compile(
    r"\b(?:public|open)\s+(?:(?:final|static|class|nonisolated|override|mutating|indirect)\s+)*"
    r"(class|struct|enum|protocol|actor|typealias|func|var|let|init|case|subscript)\b"
    r"\s*([A-Za-z_][A-Za-z0-9_]*)?")


def prose_lines(text):
    """(line number, line) for every line outside fenced code blocks."""
    fence = None
    for number, line in enumerate(text.split("\n"), 1):
        match = FENCE.match(line)
        if fence is None:
            if match:
                fence = match.group(1)
                continue
            yield number, line
        elif match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence) \
                and line.strip() == match.group(1):
            fence = None


def without_code_spans(line):
    return CODE_SPAN.sub(lambda match: " " * len(match.group(0)), line)


def slug(heading):
    """GitHub's anchor for a heading's Markdown text."""
    text = re.sub(r"!\[([^\]]*)\]\([^)]*\)", "", heading)        # images
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)         # links: their text
    text = re.sub(r"<[^>]+>", "", text)                          # HTML tags
    text = text.replace("`", "").lower()
    kept = [c for c in text if c in " -" or unicodedata.category(c)[0] in "LMN"
            or unicodedata.category(c) == "Pc"]
    return "".join(kept).replace(" ", "-")


def anchors(path, cache={}):
    """Every fragment a Markdown file answers to."""
    if path not in cache:
        found, seen, previous = set(), {}, None
        for _, line in prose_lines(path.read_text(encoding="utf-8")):
            heading = None
            match = ATX_HEADING.match(line)
            if match:
                heading = match.group(2)
            elif previous and previous.strip() and SETEXT_UNDERLINE.match(line) \
                    and not ATX_HEADING.match(previous) \
                    and not previous.lstrip().startswith(("-", "*", "|", ">")):
                heading = previous.strip()
            if heading is not None:
                base = slug(heading)
                count = seen.get(base, 0)
                seen[base] = count + 1
                found.add(base if count == 0 else f"{base}-{count}")
            found.update(EXPLICIT_ANCHOR.findall(line))
            previous = line
        cache[path] = found
    return cache[path]


def catalog_of(path):
    """The DocC catalog folder holding `path`, if any."""
    for parent in path.parents:
        if parent.suffix == ".docc":
            return parent
    return None


def module_declarations(catalog, cache={}):
    """Public type names and declared member names of the module whose sources hold `catalog`."""
    if catalog not in cache:
        types, members = set(), set()
        for source in catalog.parent.rglob("*.swift"):
            if catalog in source.parents:
                continue
            for kind, name in DECLARATION.findall(source.read_text(encoding="utf-8")):
                if kind in ("class", "struct", "enum", "protocol", "actor", "typealias"):
                    types.add(name)
                elif kind == "init":
                    members.add("init")
                elif kind == "subscript":
                    members.add("subscript")
                elif name:
                    members.add(name)
        # `case a, b` and `case a(x)` declare members too; so do non-public nested enum cases.
        for source in catalog.parent.rglob("*.swift"):
            if catalog not in source.parents:
                text = source.read_text(encoding="utf-8")
                members.update(re.findall(r"\bcase\s+([a-z][A-Za-z0-9_]*)", text))
        cache[catalog] = (types, members)
    return cache[catalog]


def check_symbol(symbol, catalog):
    module = catalog.parent.name
    types, members = module_declarations(catalog)
    parts = [part for part in symbol.split("/") if part]
    if parts and parts[0] == module:
        parts = parts[1:]
    if not parts:
        return None
    if parts[0] not in types:
        return f"symbol link ``{symbol}``: no public type {parts[0]} in module {module}"
    for member in parts[1:]:
        name = re.split(r"[(\-]", member)[0]
        if name and name not in types and name not in members:
            return f"symbol link ``{symbol}``: {module} declares no {name}"
    return None


def check_target(source, destination, root):
    """None when `destination`, written in `source`, resolves; else what is wrong."""
    destination = destination.strip()
    if destination.startswith("<") and destination.endswith(">"):
        destination = destination[1:-1]
    if not destination or SCHEME.match(destination) or destination.startswith("//"):
        return None
    path_part, _, fragment = destination.partition("#")
    path_part = urllib.parse.unquote(path_part)
    if path_part:
        base = root if path_part.startswith("/") else source.parent
        target = (base / path_part.lstrip("/")).resolve()
    else:
        target = source.resolve()
    if root != target and root not in target.parents:
        return f"{destination}: points outside the repository"
    if not target.exists():
        return f"{destination}: no such file"
    catalog = catalog_of(source)
    if catalog is not None and path_part and catalog.resolve() not in target.parents:
        return f"{destination}: leaves the DocC catalog (DocC renders it as a dead link)"
    if fragment:
        fragment = urllib.parse.unquote(fragment)
        if target.is_dir():
            return f"{destination}: a fragment on a folder"
        if target.suffix.lower() in (".md", ".markdown"):
            if fragment not in anchors(target):
                return f"{destination}: {target.relative_to(root)} has no heading #{fragment}"
        elif not LINE_ANCHOR.match(fragment):
            return f"{destination}: #{fragment} on a file that is not Markdown"
    return None


def check_file(path, root):
    """(number of links checked, [problem, ...]) for one document."""
    problems, checked = [], 0
    text = path.read_text(encoding="utf-8")
    catalog = catalog_of(path)
    name = path.relative_to(root)
    for number, line in prose_lines(text):
        if catalog is not None:
            for symbol in SYMBOL_LINK.findall(line):
                checked += 1
                problem = check_symbol(symbol, catalog)
                if problem:
                    problems.append(f"{name}:{number}: {problem}")
        plain = without_code_spans(line)
        destinations = INLINE_LINK.findall(plain) + REFERENCE_DEFINITION.findall(plain) \
            + HTML_ATTRIBUTE.findall(plain)
        for destination in destinations:
            checked += 1
            problem = check_target(path, destination, root)
            if problem:
                problems.append(f"{name}:{number}: {problem}")
        if catalog is not None:
            for page in DOC_LINK.findall(plain):
                checked += 1
                page_name = page.rsplit("/", 1)[-1]
                if not any(candidate.stem == page_name for candidate in catalog.rglob("*.md")):
                    problems.append(
                        f"{name}:{number}: <doc:{page}>: no page {page_name}.md in {catalog.name}")
    return checked, problems


def check_catalog(catalog, root):
    """A catalog has a landing page titled ``Module``, and every page a title."""
    problems, landing = [], False
    for page in sorted(catalog.rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        first = next((line for _, line in prose_lines(text) if line.strip()), "")
        if first.strip() == f"# ``{catalog.parent.name}``":
            landing = True
        elif not first.startswith("# "):
            problems.append(f"{page.relative_to(root)}:1: a DocC page starts with its # title")
    if not landing:
        problems.append(
            f"{catalog.relative_to(root)}: no landing page titled # ``{catalog.parent.name}``")
    return problems


def documents(root):
    found = [root / "README.md"] if (root / "README.md").exists() else []
    found += sorted((root / "docs").rglob("*.md")) if (root / "docs").exists() else []
    found += sorted(page for catalog in sorted((root / "Sources").glob("*/*.docc"))
                    for page in catalog.rglob("*.md")) if (root / "Sources").exists() else []
    return found


def check(root, files=None):
    files = files or documents(root)
    checked, problems = 0, []
    for path in files:
        count, found = check_file(path, root)
        checked += count
        problems += found
    catalogs = {catalog_of(path) for path in files} - {None}
    for catalog in sorted(catalogs):
        problems += check_catalog(catalog, root)
    return len(files), checked, problems


def self_test():
    """The checker must refuse documents broken on purpose, and accept their mended copies."""
    with tempfile.TemporaryDirectory() as folder:
        root = pathlib.Path(folder).resolve() / "repo"
        (root / "docs").mkdir(parents=True)
        catalog = root / "Sources" / "Lib" / "Lib.docc"
        catalog.mkdir(parents=True)
        (root / "Sources" / "Lib" / "Lib.swift").write_text(
            "public struct Thing {\n  public func go(to place: Int) {}\n}\n")
        (root / "README.md").write_text(
            "# Title\n\n## Two words: `code`\n\n[a](docs/a.md#the-part) [b](#two-words-code)\n"
            "```sh\n[not a link](nowhere.md)\n# not a heading\n```\n`[nor this](nowhere.md)`\n")
        (root / "docs" / "a.md").write_text(
            "# A\n\n## The part\n\n## The part\n\n[r](a.md#the-part-1)\n")
        (catalog / "Lib.md").write_text("# ``Lib``\n\n``Thing`` ``Thing/go(to:)`` <doc:Guide>\n")
        (catalog / "Guide.md").write_text("# Guide\n\nSee ``Lib/Thing``.\n")
        _, _, problems = check(root)
        if problems:
            sys.exit("check_links self-test: a sound tree was refused:\n  " + "\n  ".join(problems))
        broken = {
            "README.md": "# Title\n\n[gone](docs/gone.md) [no anchor](docs/a.md#nothing) "
                         "[outside](../shared/x.md) [self](#title-2)\n",
            "docs/a.md": "# A\n\n[img](picture.png) [frag](../README.md#L3x)\n",
            "Sources/Lib/Lib.docc/Lib.md":
                "# Lib\n\n``Thang`` ``Thing/run()`` <doc:Missing> [out](../../../README.md)\n",
        }
        for relative, text in broken.items():
            (root / relative).write_text(text)
        _, _, problems = check(root)
        expected = ["docs/gone.md", "#nothing", "outside the repository", "#title-2", "picture.png",
                    "#L3x", "Thang", "declares no run", "<doc:Missing>", "leaves the DocC catalog",
                    "no landing page"]
        missed = [word for word in expected if not any(word in problem for problem in problems)]
        if missed:
            sys.exit(f"check_links self-test: broken links went unreported: {missed}\n  "
                     + "\n  ".join(problems))


def main():
    self_test()
    files = [pathlib.Path(argument).resolve() for argument in sys.argv[1:]] or None
    count, checked, problems = check(ROOT, files)
    for problem in problems:
        print(f"FAIL {problem}")
    if problems:
        print(f"check_links: {len(problems)} of {checked} links in {count} documents "
              "do not resolve")
        sys.exit(1)
    print(f"check_links: {checked} links in {count} documents resolve "
          "(README.md, docs/, DocC catalogs; checked first against documents broken on purpose)")


if __name__ == "__main__":
    main()
