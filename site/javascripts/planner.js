// planner
