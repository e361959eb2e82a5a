"""mlparse.train"""
