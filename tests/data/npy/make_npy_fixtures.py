"""Writes the .npy fixtures of tests/unit/harness/npy/npy_file_test.cpp with NumPy itself (python3-numpy):
the files normbench must read, and the bytes its writer must reproduce."""
import numpy as np

np.save("f32_2x3.npy", np.arange(6, dtype="<f4").reshape(2, 3) / 4)
np.save("f64_5.npy", np.array([1.5, -2.25, np.nan, np.inf, 1e300], dtype="<f8"))
np.save("f32_scalar.npy", np.float32(7.0))
np.save("f32_fortran.npy", np.asfortranarray(np.arange(6, dtype="<f4").reshape(2, 3)))
np.save("i32_3.npy", np.arange(3, dtype="<i4"))
np.lib.format.write_array(open("f32_v2_4.npy", "wb"), np.arange(4, dtype="<f4"), version=(2, 0))
