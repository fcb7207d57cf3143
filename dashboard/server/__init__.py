"""The dashboard's server process: its options and rankscope's settings (:mod:`~dashboard.server.config`), who
each session acts for (:mod:`~dashboard.server.identity`), heavy work in a worker under a memory ceiling and a
time limit (:mod:`~dashboard.server.guard`), memory given back when sessions end
(:mod:`~dashboard.server.memory`) and the libraries later pages need, imported ahead
(:mod:`~dashboard.server.preload`)."""
