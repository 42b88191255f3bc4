# time.sleep's checks of its argument, in CPython's order: NaN, then
# whether the timeout fits CPython's nanosecond clock, then the sign
# (only sleeps of no time are valid here: CPython's would pass).
import time


def show(label, secs):
    try:
        time.sleep(secs)
    except Exception as e:
        print(label, '->', type(e).__name__, e)
    else:
        print(label, '-> returns')


show('0', 0)
show('0.0', 0.0)
show('True', True)
show('-1', -1)
show('-0.5', -0.5)
show('nan', float('nan'))
show('-nan', -float('nan'))
show('inf', float('inf'))
show('-inf', float('-inf'))
show('1e300', 1e300)
show('-9.2e9', -9.2e9)
show('9.3e9', 9.3e9)
show('-9.3e9', -9.3e9)
show('9223372037', 9223372037)
show('-9223372036', -9223372036)
show('-9223372037', -9223372037)
show('2**70', 2 ** 70)
show('-2**70', -2 ** 70)
show("'1'", '1')
show('1j', 1j)
