import warnings


def deprecated_api():
    warnings.warn("old_api is deprecated", DeprecationWarning, stacklevel=2)


def check(n):
    if n > 2:
        warnings.warn(f"n={n} is large")


for i in range(5):
    check(i)
warnings.warn("a future change", FutureWarning)
warnings.warn(RuntimeWarning("an instance"))
deprecated_api()
warnings.warn("pending", PendingDeprecationWarning)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    warnings.warn("hidden inside catch_warnings")
warnings.warn("shown after catch_warnings")
warnings.filterwarnings("ignore", message="noisy")
warnings.warn("Noisy message, ignored by the filter")
warnings.warn("not noisy")
warnings.simplefilter("error", UserWarning)
try:
    warnings.warn("now an error")
except UserWarning as e:
    print("raised:", e)
warnings.simplefilter("always")
for i in range(2):
    warnings.warn("always shown")
print("end")
