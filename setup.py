"""pip install --no-build-isolation .   (docs/python.md)

Builds the extension aoizora._core with CMake from this source tree (the system's cmake, g++,
pybind11-dev and python3-dev: nothing is downloaded, hence --no-build-isolation, which lets pip
use Debian's setuptools instead of fetching one) and installs the package python/aoizora.

The CMake build folder is build-pip/ (or $AZ_BUILD_DIR, e.g. an existing build to reuse); it
builds only the target aoizora_python, for the interpreter that runs pip.
"""

import os
import pathlib
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent
BUILD = pathlib.Path(os.environ.get("AZ_BUILD_DIR") or ROOT / "build-pip")


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        if not (BUILD / "CMakeCache.txt").exists():
            subprocess.run(["cmake", "-S", str(ROOT), "-B", str(BUILD), "-DCMAKE_BUILD_TYPE=Release",
                            "-DAZ_BUILD_TESTS=OFF", "-DAZ_BUILD_BENCH=OFF", f"-DPYTHON_EXECUTABLE={sys.executable}"],
                           check=True)
        jobs = os.environ.get("AZ_BUILD_JOBS") or str(os.cpu_count() or 1)
        subprocess.run(["cmake", "--build", str(BUILD), "--target", "aoizora_python", "-j", jobs], check=True)
        built = sorted((BUILD / "python" / "aoizora").glob("_core*.so"))
        if not built:
            raise RuntimeError(f"the CMake build in {BUILD} made no aoizora/_core*.so")
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[-1], target)


(ROOT / "build-pip").mkdir(exist_ok=True)  # egg-info goes there, not into python/
setup(
    name="aoizora",
    version="0.1.0",
    description="Auto-parallelization planner for video diffusion transformers",
    python_requires=">=3.9",
    package_dir={"": "python"},
    packages=["aoizora"],
    ext_modules=[Extension("aoizora._core", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    # setuptools' own folders go to build-pip/ too, not into build/ (make's build folder).
    options={"egg_info": {"egg_base": str(ROOT / "build-pip")},
             "build": {"build_base": str(ROOT / "build-pip" / "setuptools")}},
    zip_safe=False,
)
