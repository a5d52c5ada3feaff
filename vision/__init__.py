"""Reading one image: locate the grid, rectify it, tell tiles from empty squares, find and read
the letters; functions of an image and of the learnt models they are handed
(:class:`vision.models.ReadingModels`), plus the frame sources."""
