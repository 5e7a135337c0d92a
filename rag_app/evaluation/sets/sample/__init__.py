"""The sample report on 中芯国际: its numbers, its pages, its figures and its UI questions."""
