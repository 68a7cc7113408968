"""Results read back: the attempts of one or more run dirs with their agent identity and a human's
annotations (load.py, annotations.py), and what is made of them: paper tables (tables.py), an A/B
comparison (compare.py), an audit of every attempt (audit.py) and a static site (view.py).

Nothing here imports torch, and jinja2/plotly only inside view.py's functions (CLI start-up stays light).
"""
