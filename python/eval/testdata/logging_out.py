import logging
import sys

log = logging.getLogger(__name__)
log.info("not shown: no configuration, INFO below WARNING")
log.warning("last resort prints the bare message: %d MiB", 512)
child = logging.getLogger("train.data")
parent = logging.getLogger("train")
print(child.parent is parent, parent.parent is logging.root, logging.getLogger() is logging.root)
logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s", stream=sys.stdout)
log.info("step %d loss %s", 3, "1.5")
child.debug("hidden")
parent.setLevel(logging.DEBUG)
child.debug("now shown through the parent's level")
print(logging.getLevelName(logging.WARNING), logging.getLevelName(25), logging.getLevelName("INFO"), child.getEffectiveLevel())
h = logging.StreamHandler(sys.stdout)
h.setFormatter(logging.Formatter("{name}|{levelname}|{message}", style="{"))
quiet = logging.getLogger("quiet")
quiet.propagate = False
quiet.addHandler(h)
quiet.error("only mine")
try:
    raise ValueError("bad batch")
except ValueError:
    quiet.exception("failed")
logging.warning("root %s", "too")
print(repr(logging.getLogger("train")), logging.root)
logging.disable(logging.CRITICAL)
log.critical("disabled")
print("end")
