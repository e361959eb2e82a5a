"""Build the Cython extensions: every ``*.pyx`` under ``mlparse/`` and ``evalb/``.

Each extension has a pure-Python fallback, so a failed compile is reported
loudly but never makes the package unusable.
"""

from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).parent


def cython_extensions():
    sources = sorted(str(p.relative_to(ROOT)) for top in ("mlparse", "evalb") for p in (ROOT / top).rglob("*.pyx"))
    if not sources:
        return []
    import numpy
    from Cython.Build import cythonize
    from setuptools import Extension

    extensions = [
        Extension(
            source[:-4].replace("/", "."),
            [source],
            include_dirs=[numpy.get_include()],
            extra_compile_args=["-O3"],
            define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        )
        for source in sources
    ]
    return cythonize(
        extensions,
        language_level=3,
        compiler_directives={"boundscheck": False, "wraparound": False, "cdivision": True},
        quiet=True,
    )


setup(ext_modules=cython_extensions())
