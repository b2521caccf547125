"""The shape of the code, checked on every run so that it stays as docs/design.md describes it.

- every product module stays under 500 lines (migrations excepted; a cohesive one may have a
  higher cap of its own in LINE_CAPS);
- the product packages import each other without a cycle;
- no import is hidden inside a function to dodge one (AppConfig.ready, where Django wants the
  import late, is the one exception);
- no module takes another module's private (underscore) name;
- nothing in the repository points at a file outside it.

Function complexity is bounded by ruff (C901 at 15, in pyproject.toml), run by `make lint` in CI.
"""

import ast
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("config", "probe", "scoring", "grading", "adapters", "api")
MAX_LINES = 500
# A module that is one concept and longer than that, with its own cap and the reason.
LINE_CAPS = {
    # The figures' formulas in one place, as docs/figures.md defines them, side by side.
    "scoring/metrics.py": 560,
    # Every export's columns and rows, read against docs/export-columns.md in one file.
    "scoring/report/exports.py": 560,
    # One comparison from request to verdicts: the items shared, each side's buckets and values.
    "scoring/comparison/compare.py": 540,
}


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


MODULES = _modules()


class _Imports(ast.NodeVisitor):
    """The product imports of one module, split into module-level and late ones."""

    def __init__(self, name: str, path: Path):
        self.name = name
        self.is_package = path.name == "__init__.py"
        self.top: list[tuple[str, list[str]]] = []
        self.late: list[tuple[int, str]] = []
        self._functions: list[str] = []
        self._classes: list[ast.ClassDef] = []

    def _absolute(self, node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        base = self.name.split(".")
        keep = len(base) - node.level + (1 if self.is_package else 0)
        return ".".join(base[:keep] + ([node.module] if node.module else []))

    def _record(self, node, targets: list[tuple[str, list[str]]]) -> None:
        ours = [(module, names) for module, names in targets if module.split(".")[0] in PACKAGES]
        if not ours:
            return
        if self._functions:
            if self._functions[-1] == "ready" and self._in_app_config():
                return
            for module, _names in ours:
                self.late.append((node.lineno, module))
        else:
            self.top.extend(ours)

    def _in_app_config(self) -> bool:
        return any(
            any(getattr(base, "id", getattr(base, "attr", "")) == "AppConfig" for base in cls.bases)
            for cls in self._classes
        )

    def visit_Import(self, node: ast.Import) -> None:
        self._record(node, [(alias.name, []) for alias in node.names])

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        self._record(node, [(self._absolute(node), [alias.name for alias in node.names])])

    def visit_FunctionDef(self, node) -> None:
        self._functions.append(node.name)
        self.generic_visit(node)
        self._functions.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._classes.append(node)
        self.generic_visit(node)
        self._classes.pop()


def _imports() -> dict[str, _Imports]:
    result = {}
    for name, path in MODULES.items():
        visitor = _Imports(name, path)
        visitor.visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
        result[name] = visitor
    return result


IMPORTS = _imports()


def _target(module: str, name: str | None = None) -> str | None:
    """The product module an import loads (a name may itself be a submodule)."""
    if name and f"{module}.{name}" in MODULES:
        return f"{module}.{name}"
    while module and module not in MODULES:
        module = module.rpartition(".")[0]
    return module or None


def test_no_product_module_is_over_the_line_limit():
    long = {
        str(path.relative_to(ROOT)): count
        for path in MODULES.values()
        if (count := len(path.read_text(encoding="utf-8").splitlines()))
        > LINE_CAPS.get(str(path.relative_to(ROOT)), MAX_LINES)
    }
    assert long == {}, f"modules over {MAX_LINES} lines (or their LINE_CAPS): {long}"


def test_the_product_packages_import_without_a_cycle():
    edges: dict[str, set[str]] = {name: set() for name in MODULES}
    for name, found in IMPORTS.items():
        for module, names in found.top:
            for target in {_target(module, n) for n in names} or {_target(module)}:
                if target and target != name:
                    edges[name].add(target)
    # Tarjan's strongly connected components: any component of two or more is a cycle.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    assert cycles == []


def test_no_import_is_hidden_inside_a_function():
    late = {
        f"{name}:{line}": module for name, found in IMPORTS.items() for line, module in found.late
    }
    assert late == {}


def test_no_module_takes_another_modules_private_names():
    taken = sorted(
        f"{name} takes {module}.{imported}"
        for name, found in IMPORTS.items()
        for module, names in found.top
        for imported in names
        if imported.startswith("_") and not imported.startswith("__")
    )
    assert taken == []


# A path that climbs out of the repository (a parent-folder path read from a Markdown file's folder, or from
# the project root anywhere else, where code and comments resolve paths), or an absolute path of
# somebody's machine, is a pointer at something a reader of the repository does not have.
CLIMB = re.compile(r"(?<![\w.])(?:\.\./)+[\w.-]+")
MACHINE_PATH = re.compile(r"(?<![\w.:/-])/(?:home|root|work|mnt|srv|Users)/[\w.-]+")
BINARY = {".mo", ".png", ".jpg", ".ico", ".svg", ".woff", ".woff2", ".gz"}


def _tracked_texts():
    listed = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    for name in listed:
        path = ROOT / name
        if path.suffix in BINARY or "vendor" in path.parts or not path.is_file():
            continue
        try:
            yield path, path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue


def test_nothing_points_outside_the_repository():
    outside = []
    for path, text in _tracked_texts():
        base = path.parent if path.suffix == ".md" else ROOT
        for match in CLIMB.finditer(text):
            if not (base / match.group(0)).resolve().is_relative_to(ROOT):
                outside.append(f"{path.relative_to(ROOT)}: {match.group(0)}")
        outside += [f"{path.relative_to(ROOT)}: {m.group(0)}" for m in MACHINE_PATH.finditer(text)]
    assert outside == []


def test_imports_point_one_way():
    """adapters knows nothing of the project; probe takes of scoring only its schemes (plain
    classes); api and config sit on top, and nothing else imports them."""
    allowed = {
        "adapters": {"adapters"},
        "probe": {"probe", "adapters", "scoring.schemes"},
        "scoring": {"scoring", "probe", "adapters"},
        "grading": {"grading", "scoring", "probe", "adapters"},
        "api": {"api", "grading", "scoring", "probe", "adapters"},
        "config": set(PACKAGES),
    }
    wrong = sorted(
        f"{name} imports {module}"
        for name, found in IMPORTS.items()
        for module, _names in found.top
        if not any(
            module == root or module.startswith(root + ".") for root in allowed[name.split(".")[0]]
        )
    )
    assert wrong == []
