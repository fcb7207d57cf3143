"""The larger parts of particular pages, each drawn by a page script with one call: the data page's uploads,
judgment sets, ir_datasets field and session file; claims; the review note editor; the collections page's
sharing; following the presenter; the live class, the teacher's side and the student's."""
