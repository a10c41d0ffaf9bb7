"""Name pools of Persona-Retrieval, Long-Hop and Knowledge-Update.

Persona names are first name + surname, so that a dataset can give every essay its own
person and still have distractor names that no essay mentions (the paper's pool of 30
names lets a distractor be the subject of another essay in the shared store).
"""

from __future__ import annotations

#: (first name, pronoun)
FIRST_NAMES = tuple(
    (name, "she" if i % 2 else "he")
    for i, name in enumerate(
        "Liam Ava Noah Maya Ethan Zoe Lucas Priya Daniel Sofia Marcus Elena Jonas Amara Theo Hana Ravi Nia "
        "Felix Clara Diego Yuki Owen Sasha Caleb Imani Tomas Leila Mateo Anya Kofi Mei Arjun Ingrid Samir "
        "Lucia Hugo Freya Idris Rosa Emil Tamsin Kenji Farah Nikolai Greta Omar Paloma Bruno Selin Anders "
        "Chiara Rohan Beatriz Malik Astrid Pavel Naledi Soren Ximena Tariq Wanjiru Dmitri Esme Yusuf Linnea "
        "Joaquin Adaeze Oskar Renata Kwame Sigrid Matteo Aiko Benedek Carmen Desmond Halima Florin Ines "
        "Gaspard Jovana Laszlo Marisol Njoroge Olga Rafferty Saanvi Tobiah Uma Viggo Wilhelmina Zeke Ayla "
        "Cyrus Dalia Eamon Fatima Gunnar Helga Ibrahim Juliet Keanu Lorna Nadir Orla".split()
    )
)
SURNAMES = (
    "Thompson Carter Patel Brooks Kim Rivera Shah Bennett Nguyen Park Rossi Lee Okafor Weber Sato Laurent "
    "Williams Iyer Schmidt Alvarez Tanaka Petrov Johnson Andersen Haddad Murphy Volkov Foster Zhang Costa "
    "Lindqvist Moreau Kowalski Mensah Duarte Horvat Nakamura Oyelaran Fitzgerald Brennan Castellano Dubois "
    "Eriksen Ferreira Grieve Holloway Ibsen Jablonski Kaur Larsen Mwangi Novak Ortega Quigley Rahman "
    "Sorensen Takahashi Umarov Varga Whitlock"
).split()
#: how a Knowledge-Update subject is introduced: "my cousin Tariq"
RELATIONS = (
    "my cousin",
    "my neighbour",
    "my sister",
    "my brother",
    "my colleague",
    "my best friend",
    "my uncle",
    "my aunt",
    "my flatmate",
    "my old classmate",
    "my niece",
    "my nephew",
    "my godson",
    "my teammate",
)
